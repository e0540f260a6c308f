import { mkdir, mkdtemp, readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isOutpostError } from "@outpost/core";
import type { AgentAdapter, ConversationContext, SandboxLease, SandboxProvider } from "@outpost/core";
import { conversationResponder, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentSandbox, type AgentSandbox } from "./agent-sandbox.js";
import { missingCli } from "./cli-bin.js";
import { readLeaseFile } from "./read-lease-file.js";
import { dnsLookups, insideOfflineNamespace, nonLoopbackInterfaces, requireOfflineWhenAsked } from "./offline-tripwire.js";
import { runAgentTurn, type AgentTurnRun } from "./run-agent-turn.js";

export interface AgentScenario {
  /** Test title and CLI executable name. */
  readonly name: string;
  readonly executable: string;
  /** The adapter under test, pointed at the scripted server. */
  agent(server: ModelServer): AgentAdapter;
  /** Provider of turn 1's lease (`first`) and of the lease turn 2 resumes in (`second`): give them different homes and roots. */
  provider(which: "first" | "second"): SandboxProvider;
  /** Name of the tool call the decoder reports for the file write (e.g. `Write`, `shell`, `write_file`). */
  readonly writeTool: string;
  /** Reason the scenario cannot run here (missing daemon…); registers one named skip. */
  readonly unavailable?: string;
  readonly turnDeadlineMs?: number;
  /** `false`: the agent cannot fork, and the scenario checks that fork is refused instead. */
  readonly forkable?: boolean;
}

const FILE = "hello.txt";
const TURN1_MARKER = "MARKER_TURN1_DONE";

/**
 * The agent e2e every CLI goes through, against the real CLI and the scripted model server:
 * turn 1 writes a file with a real tool call → events (tool call, text, usage) → capture through the agent's
 * store → restore into a different home and workspace → turn 2 resumes and the server log proves it got
 * turn 1's history → fork, where the agent can. Ends by checking that nothing tried to leave loopback.
 */
export function describeAgentScenario(scenario: AgentScenario): void {
  requireOfflineWhenAsked();
  const unavailable = scenario.unavailable ?? missingCli(scenario.executable);
  describe(`${scenario.name}: the real CLI end to end`, () => {
    if (unavailable) {
      it.skip(`unavailable: ${unavailable}`, () => undefined);
      return;
    }
    let server: ModelServer;
    let sandbox: AgentSandbox;
    let agent: AgentAdapter;
    let repository: string;
    let first: { lease: SandboxLease; run: AgentTurnRun } | undefined;
    let resumed: { lease: SandboxLease; run: AgentTurnRun } | undefined;
    const deadlineMs = scenario.turnDeadlineMs ?? 90_000;

    beforeAll(async () => {
      // Text streamed in small deltas, as real APIs do, so the CLIs' and decoders' delta handling is exercised.
      server = await startModelServer({
        textDeltaSize: 7,
        responder: conversationResponder({ file: FILE, content: "hi", turn1Marker: TURN1_MARKER }),
      });
      agent = scenario.agent(server);
      sandbox = await agentSandbox(scenario.provider("first"));
      repository = await mkdtemp(join(sandbox.scratch, "host-repository-"));
    });

    afterAll(async () => {
      await sandbox?.dispose();
      await server?.close();
    });

    const context = async (lease: SandboxLease, label: string): Promise<ConversationContext> => {
      const staging = join(sandbox.scratch, `staging-${label}`);
      await mkdir(staging, { recursive: true });
      // Host leases let the store read the files directly; container leases go through the lease.
      return { repository, sandbox: lease, staging, local: scenario.provider("first").placement === "host" };
    };

    it("turn 1: a real tool call writes the file; events show the call, the text and the usage", async () => {
      const lease = await sandbox.lease("workspace-one");
      const run = await runAgentTurn(agent, lease, { prompt: `Create ${FILE} containing hi`, deadlineMs });
      first = { lease, run };
      expect(run.result.status, run.result.stderr).toBe(0);
      expect(await readLeaseFile(lease, FILE)).toBe("hi");
      if (scenario.provider("first").placement === "host") {
        // Settings the agent needs are private to the lease home: 0600 files in 0700 directories.
        for (const file of agent.homeFiles?.({ prompt: "", root: lease.root, home: lease.home }) ?? []) {
          expect((await stat(join(lease.home, file.path))).mode & 0o777, file.path).toBe(0o600);
          expect((await stat(dirname(join(lease.home, file.path)))).mode & 0o777, dirname(file.path)).toBe(0o700);
        }
      }
      expect(run.conversationId).toEqual(expect.any(String));
      expect(run.of("tool-call").map((event) => event.name)).toContain(scenario.writeTool);
      expect(run.of("tool-result").length).toBeGreaterThan(0);
      expect(
        run
          .of("text")
          .map((event) => event.text)
          .join(""),
      ).toContain(TURN1_MARKER);
      const usage = run.of("usage").at(-1)?.usage;
      expect(usage?.inputTokens).toBeGreaterThan(0);
      expect(usage?.outputTokens).toBeGreaterThan(0);
      expect(run.events.at(-1)).toMatchObject({ type: "finished" });
      expect(run.of("finished")[0]?.isError).toBeUndefined();
      expect(run.of("failure")).toEqual([]);
      expect(server.turns().length).toBeGreaterThanOrEqual(2);
    });

    it("turn 2 resumes in a different home and workspace, and the model receives turn 1's history", async (test) => {
      if (!first) return test.skip("turn 1 did not run");
      if (!agent.storage) return test.skip(`${scenario.name} has no conversation store yet`);
      const id = first.run.conversationId ?? "";
      const record = await agent.storage.capture(id, await context(first.lease, "capture"));
      const located = await agent.storage.locate(id, repository);
      expect(located.id).toBe(id);
      const lease = await sandbox.lease("workspace-two-elsewhere", scenario.provider("second"));
      expect(lease.home).not.toBe(first.lease.home);
      expect(lease.root).not.toBe(first.lease.root);
      await agent.storage.restore(record, await context(lease, "restore"));
      const before = server.turns().length;
      const run = await runAgentTurn(agent, lease, { prompt: "TURN2: what did you do?", resume: { id }, deadlineMs });
      resumed = { lease, run };
      expect(run.result.status, run.result.stderr).toBe(0);
      expect(
        run
          .of("text")
          .map((event) => event.text)
          .join(""),
      ).toContain("MARKER_TURN2_DONE history_has_turn1=true");
      const turn2 = server.turns().slice(before);
      expect(turn2.length).toBeGreaterThan(0);
      expect(turn2.every((entry) => entry.model?.transcript.includes(TURN1_MARKER))).toBe(true);
      // Relocation rewrote the old workspace path: the model never sees it again.
      const oldRoot = first.lease.root;
      const leaks = turn2.map((entry) => around(entry.body, oldRoot)).filter((leak) => leak !== undefined);
      expect(leaks, `turn 2 requests still name ${oldRoot}`).toEqual([]);
    });

    if (scenario.forkable === false) {
      it(`fork is refused with code configuration before anything runs (${scenario.name} cannot fork)`, () => {
        expect(agent.forkable).toBe(false);
        let error: unknown;
        try {
          agent.command({
            prompt: "x",
            root: "/w",
            home: "/h",
            resume: { id: first?.run.conversationId ?? "00000000-0000-4000-8000-000000000000", fork: true },
          });
        } catch (caught) {
          error = caught;
        }
        expect(isOutpostError(error, "configuration")).toBe(true);
      });
    } else {
      registerForkTest();
    }

    function registerForkTest(): void {
      it(`fork continues a copy and leaves the original intact (${scenario.name})`, async (test) => {
        if (!resumed) return test.skip("turn 2 did not run");
        const id = resumed.run.conversationId ?? first?.run.conversationId ?? "";
        const run = await runAgentTurn(agent, resumed.lease, {
          prompt: "TURN2 FORKED_BRANCH: and now?",
          resume: { id, fork: true },
          deadlineMs,
          skipHomeFiles: true,
        });
        expect(run.result.status, run.result.stderr).toBe(0);
        expect(run.conversationId).toEqual(expect.any(String));
        expect(run.conversationId).not.toBe(id);
        expect(
          run
            .of("text")
            .map((event) => event.text)
            .join(""),
        ).toContain("history_has_turn1=true");
        if (agent.storage) {
          const original = await agent.storage.capture(id, await context(resumed.lease, "original-after-fork"));
          expect(await readFile(original.file, "utf8")).not.toContain("FORKED_BRANCH");
        }
      });
    }

    it("nothing tried to leave loopback", () => {
      expect(server.problems).toEqual([]);
      expect(server.requests.every((entry) => (entry.status ?? 0) < 400)).toBe(true);
      expect(dnsLookups()).toEqual([]);
      if (insideOfflineNamespace()) expect(nonLoopbackInterfaces()).toEqual([]);
    });
  });
}

/** Text around the first occurrence of `path` as a whole path (not a prefix of a longer name), if any. */
function around(text: string, path: string): string | undefined {
  const pattern = new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w.-])`);
  const match = pattern.exec(text);
  return match ? text.slice(Math.max(0, match.index - 80), match.index + path.length + 80) : undefined;
}
