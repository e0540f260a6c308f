import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapter } from "@outpost/core";
import { createAgent, createSandbox, dispatch, type ContinuableResult } from "@outpost/dispatch";
import { dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "./support/agents.js";
import { commitResponder } from "./support/commit-responder.js";
import { git, missingCli, scratchRepository } from "./support/installed.js";
import { providerOf, type ProviderKind } from "./support/providers.js";

// The API of page 004 from the installed packages: result.resume() and result.fork() with Claude Code and
// Codex on each provider kind, a warm sandbox (createSandbox()) in a mounted container, and a custom agent
// from createAgent() with its own request() and fork hook.
const docker = await dockerGate({ images: [TEST_IMAGE] });
let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer({ responder: commitResponder() });
});
afterAll(async () => {
  await server?.close();
});

const kinds: ProviderKind[] = ["local", "docker", "docker isolated"];
const turn2 = (file: string) => `TURN2: what did you do before? Then create and commit FILE=${file}`;

function expectContinued(result: ContinuableResult, repository: string, file: string): void {
  expect(result.completed, result.text).toBe(true);
  expect(result.text).toContain("history_has_turn1=true");
  expect(result.commits, result.text).toHaveLength(1);
  expect(git(repository, "log", "-1", "--format=%s", result.commits[0]!)).toBe(`Add ${file}`);
}

for (const name of ["claude", "codex"]) {
  const unavailable = missingCli(name);
  describe(`${name}: result.resume() and result.fork(), from the installed packages`, () => {
    for (const kind of kinds) {
      const skipped = unavailable ?? (kind === "local" ? undefined : docker.unavailable?.reason);
      it.skipIf(skipped !== undefined)(`on ${kind}${skipped ? ` (unavailable: ${skipped})` : ""}`, async () => {
        const agent: AgentAdapter = AGENTS[name]!(server);
        const slug = kind.replace(" ", "-");
        const repository = scratchRepository(`outpost-consumer-page-${name}-`);
        const first = await dispatch({
          agent,
          brief: `create and commit FILE=${slug}-first.txt`,
          repository,
          conversationHome: mkdtempSync(join(tmpdir(), `outpost-consumer-page-${name}-`)),
          sandboxProvider: providerOf(kind),
          branch: { mode: "integrate" },
        });
        expect(first.conversation, first.conversationError?.message).toBeDefined();
        const forked = await first.fork(turn2(`${slug}-forked.txt`));
        expectContinued(forked, repository, `${slug}-forked.txt`);
        expect(forked.conversationId).not.toBe(first.conversationId);
        const resumed = await first.resume(turn2(`${slug}-resumed.txt`));
        expectContinued(resumed, repository, `${slug}-resumed.txt`);
        expect(resumed.conversationId).toBe(first.conversationId);
        expect(server.problems).toEqual([]);
      });
    }
  });
}

describe("createSandbox() and a custom agent, from the installed packages", () => {
  const unavailable = missingCli("claude") ?? docker.unavailable?.reason;
  it.skipIf(unavailable !== undefined)(
    `a warm mounted container keeps one lease for a dispatch and its resume${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
    async () => {
      const repository = scratchRepository("outpost-consumer-warm-");
      const sandbox = await createSandbox({
        agent: AGENTS["claude"]!(server),
        repository,
        conversationHome: mkdtempSync(join(tmpdir(), "outpost-consumer-warm-")),
        sandboxProvider: providerOf("docker"),
        branch: { mode: "named", name: "warm" },
      });
      try {
        const first = await sandbox.dispatch("create and commit FILE=warm-first.txt");
        expect(first.commits).toHaveLength(1);
        const resumed = await sandbox.resume(first.conversationId!, turn2("warm-resumed.txt"));
        expectContinued(resumed, repository, "warm-resumed.txt");
        const listed = await sandbox.command({ executable: "git", arguments: ["ls-files"] });
        expect(listed.stdout.split("\n")).toEqual(expect.arrayContaining(["warm-first.txt", "warm-resumed.txt"]));
      } finally {
        await sandbox.close();
      }
    },
  );

  const noClaude = missingCli("claude");
  it.skipIf(noClaude !== undefined)(
    `createAgent() with request() and a fork hook over the installed claude plugin${noClaude ? ` (unavailable: ${noClaude})` : ""}`,
    async () => {
      const asked: unknown[] = [];
      const agent = await createAgent({
        harness: "claude",
        endpoint: { baseUrl: server.url, apiKey: "sk-ant-consumer" },
        request: (turn, harness) => (asked.push(turn.resume), harness.command(turn)),
        fork: async (id, { sandbox }) => {
          const copy = randomUUID();
          const copied = await sandbox.invoke({
            executable: "sh",
            arguments: [
              "-c",
              'set -e; src=$(find "$1/.claude/projects" -name "$2.jsonl" | head -n 1); [ -n "$src" ]; sed "s/$2/$3/g" "$src" > "${src%/*}/$3.jsonl"',
              "fork",
              sandbox.home,
              id,
              copy,
            ],
          });
          if (copied.status !== 0) throw new Error(`copy failed: ${copied.stderr}`);
          return copy;
        },
      });
      const repository = scratchRepository("outpost-consumer-custom-");
      const first = await dispatch({
        agent,
        brief: "create and commit FILE=custom-first.txt",
        repository,
        conversationHome: mkdtempSync(join(tmpdir(), "outpost-consumer-custom-")),
        sandboxProvider: providerOf("local"),
      });
      const original = readFileSync(first.conversation!.file, "utf8");
      const forked = await first.fork(turn2("custom-forked.txt"));
      expectContinued(forked, repository, "custom-forked.txt");
      expect(asked).toEqual([undefined, { id: forked.conversationId }]);
      expect(readFileSync(first.conversation!.file, "utf8")).toBe(original);
    },
  );
});
