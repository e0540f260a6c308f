import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { opencodeAgent } from "@outpost/agent-opencode";
import type { AgentAdapter, ConversationStore, SandboxLease } from "@outpost/core";
import { DEFAULT_USAGE, startModelServer } from "@outpost/testkit/model-server";
import type { ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentSandbox } from "../support/agent-sandbox.js";
import type { AgentSandbox } from "../support/agent-sandbox.js";
import { missingCli, pathWithClis } from "../support/cli-bin.js";
import { connections, nonLoopbackConnections, straceAvailable, traceConnections } from "../support/connect-trace.js";
import { dockerAgentProvider } from "../support/docker-agent-provider.js";
import { dnsLookups, insideOfflineNamespace, nonLoopbackInterfaces, requireOfflineWhenAsked } from "../support/offline-tripwire.js";
import { providerVariants } from "../support/provider-variants.js";
import { runAgentTurn } from "../support/run-agent-turn.js";
import { writeHomeFiles } from "../support/write-home-files.js";

requireOfflineWhenAsked();
const missing = missingCli("opencode");

const variants = providerVariants({ first: () => dockerAgentProvider("first"), second: () => dockerAgentProvider("second") });

for (const variant of variants) {
  const unavailable = missing ?? variant.unavailable;
  describe.skipIf(unavailable !== undefined)(
    `opencode 1.18.33 end to end, ${variant.name}${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
    () => {
      // Outside the offline namespace, every connect() of the CLI tree is traced to prove it stays on loopback.
      const traced = variant.host && !insideOfflineNamespace() && straceAvailable();
      let server: ModelServer;
      let sandbox: AgentSandbox;
      let secondSandbox: AgentSandbox;
      let traces: string;
      /** Trace file → port of the model server that run talked to. */
      const logs = new Map<string, () => number>();

      beforeAll(async () => {
        server = await startModelServer();
        sandbox = await agentSandbox(variant.first());
        secondSandbox = await agentSandbox(variant.second());
        traces = await mkdtemp(join(tmpdir(), "outpost-e2e-opencode-trace-"));
      });
      afterAll(async () => {
        await sandbox?.dispose();
        await secondSandbox?.dispose();
        await server?.close();
        await rm(traces, { recursive: true, force: true });
      });

      const plain = (target: ModelServer = server) =>
        opencodeAgent({
          endpoint: { baseUrl: `${target.url}/v1`, apiKey: "fake-key" },
          model: "fake-model",
          variables: variant.host ? { PATH: pathWithClis() } : {},
        });
      function agent(trace: string, target: ModelServer = server): AgentAdapter {
        if (!traced) return plain(target);
        logs.set(trace, () => target.port);
        return traceConnections(plain(target), join(traces, trace));
      }

      /** Runs an opencode subcommand (export / import) in the lease with the agent's variables. */
      async function opencode(lease: SandboxLease, ...args: string[]) {
        const result = await lease.invoke({
          executable: "opencode",
          arguments: args,
          variables: { ...plain().variables, PWD: lease.root },
          deadlineMs: 60_000,
        });
        expect(result.status, result.stderr).toBe(0);
        return result.stdout;
      }

      it("runs a tool-calling turn, moves the session to another home and workspace, resumes it, and forks it", async () => {
        const first = await sandbox.lease("first-workspace");
        const turn1 = await runAgentTurn(agent("turn1.log"), first, { prompt: "Create hello.txt containing hi" });
        expect(turn1.result.status, turn1.result.stderr).toBe(0);

        // The real tool call wrote the file; the decoded events show the call, the text and the usage.
        const written = join(sandbox.scratch, "written");
        await first.download(join(first.root, "hello.txt"), written);
        expect(await readFile(written, "utf8")).toBe("hi");
        expect(turn1.of("tool-call")).toEqual([
          expect.objectContaining({ name: "write", input: { filePath: join(first.root, "hello.txt"), content: "hi" } }),
        ]);
        expect(turn1.of("tool-result")).toEqual([expect.objectContaining({ output: "Wrote file successfully." })]);
        expect(turn1.of("text").map((event) => event.text)).toEqual(["MARKER_TURN1_DONE"]);
        expect(turn1.of("usage")).toHaveLength(2);
        expect(turn1.of("usage")[0]?.usage).toMatchObject({
          inputTokens: DEFAULT_USAGE.inputTokens,
          outputTokens: DEFAULT_USAGE.outputTokens,
        });
        expect(turn1.of("finished")).toEqual([{ type: "finished", text: "MARKER_TURN1_DONE" }]);
        const id = turn1.conversationId as string;
        expect(id).toMatch(/^ses_/);

        // Capture through the agent's store: opencode keeps sessions in SQLite, the store keeps its export.
        const repository = await mkdtemp(join(sandbox.scratch, "host-repository-"));
        const context = async (lease: SandboxLease, label: string) => {
          const staging = join(sandbox.scratch, `staging-${label}`);
          await mkdir(staging, { recursive: true });
          return { repository, sandbox: lease, staging, local: variant.host };
        };
        const storage = plain().storage as ConversationStore;
        const record = await storage.capture(id, await context(first, "capture"));
        expect(JSON.parse(await readFile(record.file, "utf8")).info.id).toBe(id);
        expect((await storage.locate(id, repository)).file).toBe(record.file);

        // Restore into a different home and workspace path; the first sandbox is then forgotten.
        const second = await secondSandbox.lease("second-workspace");
        expect(second.home).not.toBe(first.home);
        expect(second.root).not.toBe(first.root);
        await writeHomeFiles(second, plain().homeFiles?.({ prompt: "", root: second.root, home: second.home }) ?? []);
        await storage.restore(record, await context(second, "restore"));
        const oldRoot = first.root;
        await first.release();

        const before = server.turns().length;
        const turn2 = await runAgentTurn(agent("turn2.log"), second, { prompt: "TURN2: what did you do?", resume: { id } });
        expect(turn2.result.status, turn2.result.stderr).toBe(0);
        expect(turn2.conversationId).toBe(id);
        expect(turn2.of("finished")).toEqual([{ type: "finished", text: "MARKER_TURN2_DONE history_has_turn1=true" }]);
        const resumed = server.turns().slice(before);
        expect(resumed).toHaveLength(1);
        expect(resumed[0]?.body).toContain("MARKER_TURN1_DONE");
        expect(resumed[0]?.body).toContain("Create hello.txt containing hi");
        expect(resumed[0]?.body).not.toContain(oldRoot);

        // Fork: a new session that carries the history; the original is left as it was.
        const fork = await runAgentTurn(agent("fork.log"), second, { prompt: "TURN2: forked", resume: { id, fork: true } });
        expect(fork.result.status, fork.result.stderr).toBe(0);
        expect(fork.conversationId).toMatch(/^ses_/);
        expect(fork.conversationId).not.toBe(id);
        expect(fork.of("finished")).toEqual([{ type: "finished", text: "MARKER_TURN2_DONE history_has_turn1=true" }]);
        const original = await opencode(second, "export", id);
        expect(original).toContain("TURN2: what did you do?");
        expect(original).not.toContain("TURN2: forked");
        expect(await opencode(second, "export", fork.conversationId as string)).toContain("TURN2: forked");
        expect(server.problems).toEqual([]);
      }, 240_000);

      it("classifies the CLI's own output after the provider keeps answering 429 as quota", async () => {
        const lease = await sandbox.lease("quota-workspace");
        // A server of its own that answers every model call 429, however often opencode retries.
        const limited = await startModelServer({
          responder: () => ({ error: { status: 429, message: "Rate limit reached", headers: { "retry-after": "0" } } }),
        });
        try {
          const run = await runAgentTurn(agent("quota.log", limited), lease, { prompt: "Create hello.txt containing hi" });
          expect(run.result.status).toBe(1);
          expect(run.of("failure")).toEqual([expect.objectContaining({ classification: "quota" })]);
          expect(limited.turns().length).toBeGreaterThan(1);
        } finally {
          await limited.close();
        }
      }, 90_000);

      it("never left loopback", () => {
        expect(server.turns().length).toBeGreaterThanOrEqual(4);
        // Every request the CLI made reached the scripted server and was a known route.
        expect(server.requests.every((entry) => entry.kind !== "other" || (entry.status ?? 0) < 400)).toBe(true);
        expect(plain().variables).toMatchObject({
          OPENCODE_DISABLE_AUTOUPDATE: "1",
          OPENCODE_DISABLE_MODELS_FETCH: "1",
          npm_config_offline: "true",
        });
        if (insideOfflineNamespace()) {
          expect(nonLoopbackInterfaces()).toEqual([]);
          expect(dnsLookups()).toEqual([]);
        } else if (traced) {
          for (const [log, port] of logs) {
            expect(connections(join(traces, log)), log).toContain(`127.0.0.1:${port()}`);
            expect(nonLoopbackConnections(join(traces, log)), log).toEqual([]);
          }
        }
      });
    },
  );
}
