import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeAgent } from "@outpost/agent-claude";
import type { SandboxProvider } from "@outpost/core";
import { dispatch, type DispatchResult } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { localProvider } from "@outpost/provider-local";
import { conversationResponder, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { DOCKER_TEST_IMAGE, dockerGate, scratchRepository } from "../src/index.js";

// HOME is this file's own folder (support/private-temp.ts), standing for the user's home: the local
// provider's default lease home, and where Claude's conversations are stored by default. One conversation
// goes through three workspaces and two provider kinds; every workspace it visits on that home keeps a copy
// of the transcript, and each capture must take the one the turn continued.
const require = createRequire(import.meta.url);
const claudePackage = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
const claudeBinary = join(claudePackage, (require("@anthropic-ai/claude-code/package.json") as { bin: { claude: string } }).bin.claude);
const gate = dockerGate();

(gate.unavailable ? describe.skip : describe)(
  `Claude on the user's own home: five turns, three workspaces, local and Docker${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    let server: ModelServer;
    beforeAll(async () => {
      server = await startModelServer({ responder: conversationResponder() });
    });
    afterAll(async () => server?.close());

    it("continues into other workspaces and back: no turn is lost, nothing asks to remove files", async () => {
      const workspaces = { a: scratchRepository(), b: scratchRepository(), c: scratchRepository() };
      const local = localProvider();
      const docker = dockerProvider({
        image: DOCKER_TEST_IMAGE,
        network: "host",
        user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
        volumes: [{ source: claudePackage, target: claudePackage, readOnly: true }],
      });
      const agent = claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-test", executable: claudeBinary, maxRetries: 0 });
      const warnings: string[] = [];
      const turn = (brief: string, repository: string, provider: SandboxProvider, id?: string): Promise<DispatchResult> =>
        dispatch({
          agent,
          brief,
          repository,
          sandboxProvider: provider,
          until: [],
          warn: (message) => warnings.push(message),
          ...(id ? { continuation: { id } } : {}),
        });

      const first = await turn("Create hello.txt containing hi", workspaces.a, local);
      const id = first.conversationId!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const journey: Array<[string, string, SandboxProvider]> = [
        ["TURN2 step two, in workspace b", workspaces.b, local],
        ["TURN2 step three, in workspace c on Docker", workspaces.c, docker],
        ["TURN2 step four, back in workspace a", workspaces.a, local],
        ["TURN2 step five, back in workspace b", workspaces.b, local],
      ];
      const prompts = ["Create hello.txt containing hi"];
      for (const [brief, repository, provider] of journey) {
        const result = await turn(brief, repository, provider, id);
        expect(result.conversationId, brief).toBe(id);
        expect(result.text, brief).toContain("history_has_turn1=true");
        // The model saw every earlier turn, and the stored conversation holds them all plus this one.
        const request = server.requests.filter((logged) => logged.kind === "turn").at(-1)!;
        for (const earlier of prompts) expect(request.body, `${brief} sees "${earlier}"`).toContain(earlier);
        prompts.push(brief);
        const stored = readFileSync(result.conversation!.file, "utf8");
        for (const prompt of prompts) expect(stored, `stored after "${brief}"`).toContain(prompt);
      }
      // The local turns ran in workspaces a and b on this home: each keeps its copy (the capture took the
      // workspace's own), and the user was never asked to remove one.
      const copies = readdirSync(join(homedir(), ".claude", "projects"), { recursive: true, encoding: "utf8" }).filter((path) =>
        path.endsWith(`${id}.jsonl`),
      );
      expect(copies).toHaveLength(2);
      expect(warnings.filter((message) => /remove|stale/i.test(message))).toEqual([]);
      expect(server.problems).toEqual([]);
    }, 600_000);
  },
);
