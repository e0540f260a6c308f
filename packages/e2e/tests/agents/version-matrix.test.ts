import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeAgent } from "@outpost/agent-claude";
import { codexAgent } from "@outpost/agent-codex";
import { copilotAgent } from "@outpost/agent-copilot";
import { geminiAgent } from "@outpost/agent-gemini";
import { opencodeAgent, opencodeConversationStore } from "@outpost/agent-opencode";
import { isOutpostError, probeCliVersion } from "@outpost/core";
import type { AgentAdapter, SandboxLease, Usage } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { conversationResponder, DEFAULT_USAGE, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentSandbox, type AgentSandbox } from "../support/agent-sandbox.js";
import { matrixReleases } from "../support/cli-matrix.js";
import { dnsLookups, insideOfflineNamespace, requireOfflineWhenAsked } from "../support/offline-tripwire.js";
import { readLeaseFile } from "../support/read-lease-file.js";
import { runAgentTurn, type AgentTurnRun } from "../support/run-agent-turn.js";
import { writeHomeFiles } from "../support/write-home-files.js";

/**
 * The version matrix: every older release of cli-matrix/versions.txt (installed outside the lockfile by
 * tools/install-cli-matrix.sh) runs a real turn, a capture and a continuation in another home and workspace,
 * offline against the scripted model server. The agent is given the release's absolute executable and learns
 * its version itself. It runs in the offline agents suite (scripts/offline.sh) only, once per CI run.
 */
requireOfflineWhenAsked();
const REQUIRED = process.env["OUTPOST_REQUIRE_CLI_MATRIX"] === "1";
const COPILOT_CACHE = join(tmpdir(), "outpost-e2e-copilot-cache");
// PATH without the repository's node_modules/.bin: only the release under test can answer.
const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const AGENTS: Record<string, { readonly writeTool: string; agent(server: ModelServer, executable: string): AgentAdapter }> = {
  claude: {
    writeTool: "Write",
    agent: (server, executable) => claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-outpost-test", maxRetries: 0, executable }),
  },
  codex: {
    writeTool: "shell",
    agent: (server, executable) =>
      codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "outpost-test-key", model: "gpt-5.5", maxRetries: 0, executable }),
  },
  copilot: {
    writeTool: "create",
    agent: (server, executable) =>
      copilotAgent({
        endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" },
        model: "fake-model",
        cacheDirectory: COPILOT_CACHE,
        executable,
      }),
  },
  gemini: {
    writeTool: "write_file",
    agent: (server, executable) =>
      geminiAgent({ baseUrl: server.url, apiKey: "outpost-test-key", model: "gemini-2.5-flash", maxAttempts: 1, executable }),
  },
  // The store is passed explicitly, as the dispatch README shows: it must export and import with this release.
  opencode: {
    writeTool: "write",
    agent: (server, executable) =>
      opencodeAgent({
        endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" },
        model: "fake-model",
        executable,
        storage: opencodeConversationStore(),
      }),
  },
};

for (const release of matrixReleases()) {
  const unavailable = !insideOfflineNamespace()
    ? "the matrix runs in the offline agents suite (scripts/offline.sh)"
    : REQUIRED
      ? undefined
      : release.missing;
  describe.skipIf(unavailable !== undefined)(
    `${release.agent} ${release.version} (version matrix)${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
    () => {
      const spec = AGENTS[release.agent];
      let server: ModelServer;
      let sandbox: AgentSandbox;
      let agent: AgentAdapter;
      let repository: string;
      let first: { lease: SandboxLease; run: AgentTurnRun } | undefined;

      beforeAll(async () => {
        if (!spec) throw new Error(`cli-matrix/versions.txt names an agent this test does not know: ${release.agent}`);
        if (release.missing) throw new Error(release.missing);
        await mkdir(COPILOT_CACHE, { recursive: true });
        server = await startModelServer({
          textDeltaSize: 7,
          responder: conversationResponder({ file: "hello.txt", content: "hi", turn1Marker: "MARKER_TURN1_DONE" }),
        });
        agent = spec.agent(server, release.executable);
        sandbox = await agentSandbox(localProvider({ home: "private", variables: { PATH: SYSTEM_PATH } }));
        repository = await mkdtemp(join(sandbox.scratch, "host-repository-"));
      });
      afterAll(async () => {
        await sandbox?.dispose();
        await server?.close();
      });

      const context = async (lease: SandboxLease, label: string) => {
        const staging = join(sandbox.scratch, `staging-${label}`);
        await mkdir(staging, { recursive: true });
        return { repository, sandbox: lease, staging, local: true };
      };

      it("learns its version from the executable in the lease, inside the tested range", async () => {
        // With the agent's variables, as the turn runs it (Copilot's loader would otherwise run a newer cached release).
        const lease = await sandbox.lease("version");
        const probe = await probeCliVersion(lease, { executable: release.executable, variables: agent.variables });
        expect(probe.version).toBe(release.version);
        expect(agent.cliWarnings?.(probe)).toEqual([]);
      });

      it("turn 1: a real tool call writes the file; every event kind is known", async () => {
        const lease = await sandbox.lease("workspace-one");
        const run = await runAgentTurn(agent, lease, { prompt: "Create hello.txt containing hi", deadlineMs: 120_000 });
        first = { lease, run };
        await keepStdout(`${release.agent}-${release.version}-turn1-tool-call.jsonl`, run);
        expect(run.result.status, run.result.stderr.slice(-2000)).toBe(0);
        expect(await readLeaseFile(lease, "hello.txt")).toBe("hi");
        expect(run.of("tool-call").map((event) => event.name)).toContain(spec!.writeTool);
        expect(
          run
            .of("text")
            .map((event) => event.text)
            .join(""),
        ).toContain("MARKER_TURN1_DONE");
        expect(run.conversationId).toEqual(expect.any(String));
        // No version warning, no unknown event kind: the feature table and the decoder cover this release.
        expect(run.diagnostics).toEqual([]);
      }, 180_000);

      it("captures the conversation, continues it in another home and workspace, and counts the turn's own usage", async (test) => {
        if (!first) return test.skip("turn 1 did not run");
        const id = first.run.conversationId as string;
        const record = await agent.storage!.capture(id, await context(first.lease, "capture"));
        expect(firstUsage(agent, first.run, await readFile(record.file, "utf8"))).toMatchObject({ inputTokens: expect.any(Number) });

        const lease = await sandbox.lease("workspace-two-elsewhere");
        expect(lease.root).not.toBe(first.lease.root);
        await writeHomeFiles(lease, agent.homeFiles?.({ prompt: "", root: lease.root, home: lease.home }) ?? []);
        await agent.storage!.restore(record, await context(lease, "restore"));
        const before = server.turns().length;
        const run = await runAgentTurn(agent, lease, { prompt: "TURN2: what did you do?", resume: { id }, deadlineMs: 120_000 });
        await keepStdout(`${release.agent}-${release.version}-turn2-resume.jsonl`, run);
        expect(run.result.status, run.result.stderr.slice(-2000)).toBe(0);
        expect(
          run
            .of("text")
            .map((event) => event.text)
            .join(""),
        ).toContain("MARKER_TURN2_DONE history_has_turn1=true");
        expect(run.diagnostics).toEqual([]);
        const calls = server.turns().length - before;
        expect(calls).toBeGreaterThan(0);

        // The continued turn's usage is its own: what the server charged for turn 2's calls, not the thread's total.
        const again = await agent.storage!.capture(run.conversationId ?? id, await context(lease, "capture-two"));
        const usage = agent.transcriptUsage?.(await readFile(again.file, "utf8")) ?? eventUsage(run);
        expect(usage.incomplete).toBeUndefined();
        if (release.agent === "codex" || release.agent === "copilot") {
          expect(usage).toMatchObject({ inputTokens: calls * DEFAULT_USAGE.inputTokens, outputTokens: calls * DEFAULT_USAGE.outputTokens });
        } else {
          expect(usage.inputTokens).toBeGreaterThan(0);
        }
      }, 240_000);

      it("a fork it cannot do is refused with `configuration` naming the release, before anything runs", () => {
        // The release as the lease told it (the probe's answer, checked above).
        const learned = { version: release.version };
        if (agent.forkable === true || (agent.forkable === undefined && agent.unsupported?.("fork", learned) === undefined)) return;
        const reason = agent.unsupported?.("fork", learned);
        expect(reason).toEqual(expect.any(String));
        let error: unknown;
        try {
          agent.command({
            prompt: "x",
            root: "/w",
            home: "/h",
            cliVersion: learned,
            resume: { id: first?.run.conversationId ?? "00000000-0000-4000-8000-000000000000", fork: true },
          });
        } catch (caught) {
          error = caught;
        }
        expect(isOutpostError(error, "configuration")).toBe(true);
        if (release.agent === "codex") expect(reason).toContain(release.version);
      });

      it("nothing tried to leave loopback", () => {
        expect(server.problems).toEqual([]);
        expect(dnsLookups()).toEqual([]);
      });
    },
  );
}

/** With OUTPOST_RECORD_MATRIX=<dir>, keeps each turn's stdout there: the decoder fixtures of the tested releases. */
async function keepStdout(file: string, run: AgentTurnRun): Promise<void> {
  const directory = process.env["OUTPOST_RECORD_MATRIX"];
  if (!directory) return;
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, file), run.lines.map((line) => `${line}\n`).join(""));
}

function eventUsage(run: AgentTurnRun): Usage {
  return run.of("finished").at(-1)?.usage ?? run.of("usage").at(-1)?.usage ?? {};
}

/** Turn 1's usage as dispatch would count it: the transcript's when the agent reads one, else the events'. */
function firstUsage(agent: AgentAdapter, run: AgentTurnRun, transcript: string): Usage {
  const usage = agent.transcriptUsage?.(transcript) ?? eventUsage(run);
  expect(usage.incomplete).toBeUndefined();
  return usage;
}
