import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapter } from "@outpost/core";
import { dispatch, type DispatchResult } from "@outpost/dispatch";
import { dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "./agents.js";
import { commitResponder } from "./commit-responder.js";
import { git, missingCli, scratchRepository } from "./installed.js";
import { providerOf, type ProviderKind } from "./providers.js";

// Throws under OUTPOST_REQUIRE_DOCKER=1 (CI) when the engine or the image is missing; a named skip elsewhere.
const docker = await dockerGate({ images: [TEST_IMAGE] });

/**
 * One conversation of a real agent CLI through the installed packages: a turn on the local provider that
 * commits and is captured, continued in a mounted Docker container, then an isolated one, then locally again.
 * Every turn commits one file and must be captured; every continuation must carry turn 1's history.
 */
export function describeAgentChain(name: string, executable = name): void {
  const unavailable = missingCli(executable);
  describe(`${name}: capture and continuation across providers, from the installed packages`, () => {
    if (unavailable) {
      it.skip(`unavailable: ${unavailable}`, () => undefined);
      return;
    }
    let server: ModelServer;
    let agent: AgentAdapter;
    const repository = scratchRepository(`outpost-consumer-${name}-`);
    const conversationHome = mkdtempSync(join(tmpdir(), `outpost-consumer-${name}-conversations-`));
    let conversationId: string | undefined;
    beforeAll(async () => {
      server = await startModelServer({ responder: commitResponder() });
      agent = AGENTS[name]!(server);
    });
    afterAll(async () => {
      await server?.close();
    });

    const turn = async (kind: ProviderKind, file: string): Promise<DispatchResult> => {
      const warnings: string[] = [];
      const continued = conversationId !== undefined;
      const result = await dispatch({
        agent,
        brief: `${continued ? "TURN2: what did you do before? Then " : ""}create and commit FILE=${file}`,
        repository,
        conversationHome,
        sandboxProvider: providerOf(kind),
        branch: { mode: "integrate" },
        warn: (message) => warnings.push(message),
        ...(continued ? { continuation: { id: conversationId! } } : {}),
      });
      expect(result.completed, result.text).toBe(true);
      expect(result.commits, result.text).toHaveLength(1);
      expect(git(repository, "log", "-1", "--format=%s", "main")).toBe(`Add ${file}`);
      expect(result.conversation, `captured on ${kind}; warnings: ${warnings.join(" | ")}`).toBeDefined();
      if (continued) {
        expect(result.conversationId).toBe(conversationId);
        expect(result.text).toContain("history_has_turn1=true");
      } else {
        conversationId = result.conversationId;
      }
      expect(server.problems).toEqual([]);
      return result;
    };

    it("a turn on the local provider commits and is captured", async () => {
      await turn("local", "local.txt");
    });
    it.skipIf(docker.unavailable !== undefined)(
      `continues in a mounted Docker container, commits and is captured${docker.unavailable ? ` (unavailable: ${docker.unavailable.reason})` : ""}`,
      async () => {
        expect(conversationId, "turn 1 was captured").toBeDefined();
        await turn("docker", "mounted.txt");
      },
    );
    it.skipIf(docker.unavailable !== undefined)(
      `continues in an isolated Docker container, commits and is captured${docker.unavailable ? ` (unavailable: ${docker.unavailable.reason})` : ""}`,
      async () => {
        expect(conversationId, "turn 1 was captured").toBeDefined();
        await turn("docker isolated", "isolated.txt");
      },
    );
    it("continues back on the local provider with the whole history", async () => {
      expect(conversationId, "turn 1 was captured").toBeDefined();
      await turn("local", "back.txt");
      expect(git(repository, "status", "--porcelain")).toBe("");
    });
  });
}
