import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { copilotAgent } from "@outpost/agent-copilot";
import { isOutpostError } from "@outpost/core";
import type { AgentAdapter, ConversationStore, SandboxLease, SandboxProvider } from "@outpost/core";
import { dockerProvider } from "@outpost/provider-docker";
import { DEFAULT_USAGE, startModelServer } from "@outpost/testkit/model-server";
import type { ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCKER_TEST_IMAGE } from "../../src/docker-gate.js";
import { agentSandbox } from "../support/agent-sandbox.js";
import type { AgentSandbox } from "../support/agent-sandbox.js";
import { CLI_BIN, missingCli, pathWithClis } from "../support/cli-bin.js";
import { connections, nonLoopbackConnections, straceAvailable, traceConnections } from "../support/connect-trace.js";
import { dnsLookups, insideOfflineNamespace, nonLoopbackInterfaces, requireOfflineWhenAsked } from "../support/offline-tripwire.js";
import { providerVariants } from "../support/provider-variants.js";
import { runAgentTurn } from "../support/run-agent-turn.js";

requireOfflineWhenAsked();
const missing = missingCli("copilot");
// One shared cache: Copilot unpacks ~235 MB into a fresh XDG_CACHE_HOME on its first start.
const CACHE = join(tmpdir(), "outpost-e2e-copilot-cache");

const variants = providerVariants({
  first: () => copilotContainers("/workspace", "/home/outpost"),
  second: () => copilotContainers("/srv/outpost/elsewhere", "/home/outpost-second"),
});

/** Containers running the pinned CLI from the host's node_modules (read-only), on the host network, with the shared cache. */
function copilotContainers(root: string, home: string): SandboxProvider {
  const nodeModules = dirname(CLI_BIN);
  return dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "host",
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    volumes: [
      { source: nodeModules, target: nodeModules, readOnly: true },
      { source: CACHE, target: CACHE },
    ],
    variables: { PATH: `${CLI_BIN}:/usr/local/bin:/usr/bin:/bin` },
    root,
    home,
  });
}

for (const variant of variants) {
  const unavailable = missing ?? variant.unavailable;
  describe.skipIf(unavailable !== undefined)(
    `copilot 1.0.102 end to end, ${variant.name}${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
    () => {
      // Outside the offline namespace, every connect() of the CLI tree is traced to prove it stays on loopback.
      const traced = variant.host && !insideOfflineNamespace() && straceAvailable();
      let server: ModelServer;
      let firstSandbox: AgentSandbox;
      let secondSandbox: AgentSandbox;
      let traces: string;

      beforeAll(async () => {
        server = await startModelServer();
        await mkdir(CACHE, { recursive: true });
        firstSandbox = await agentSandbox(variant.first());
        secondSandbox = await agentSandbox(variant.second());
        traces = await mkdtemp(join(tmpdir(), "outpost-e2e-copilot-trace-"));
      });
      afterAll(async () => {
        await firstSandbox?.dispose();
        await secondSandbox?.dispose();
        await server?.close();
        await rm(traces, { recursive: true, force: true });
      });

      function agent(trace: string): AgentAdapter {
        const plain = copilotAgent({
          endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" },
          model: "fake-model",
          cacheDirectory: CACHE,
          variables: variant.host ? { PATH: pathWithClis() } : {},
        });
        return traced ? traceConnections(plain, join(traces, trace)) : plain;
      }

      it("runs a tool-calling turn, relocates the session to another home and workspace, and resumes it", async () => {
        const first = await firstSandbox.lease("first-workspace");
        const turn1 = await runAgentTurn(agent("turn1.log"), first, { prompt: "Create hello.txt containing hi" });
        expect(turn1.result.status, turn1.result.stderr).toBe(0);

        // The real tool call wrote the file in the workspace.
        const written = join(firstSandbox.scratch, "written");
        await first.download(join(first.root, "hello.txt"), written);
        expect(await readFile(written, "utf8")).toBe("hi");
        expect(turn1.of("tool-call")).toEqual([
          expect.objectContaining({ name: "create", input: { path: join(first.root, "hello.txt"), file_text: "hi" } }),
        ]);
        expect(turn1.of("tool-result")).toEqual([expect.objectContaining({ output: expect.stringContaining("Created file") })]);
        expect(
          turn1
            .of("text")
            .map((event) => event.text)
            .join(""),
        ).toContain("MARKER_TURN1_DONE");
        // Copilot prints no token counts: the finish says usage is incomplete until the session's totals are read.
        expect(turn1.of("finished")).toEqual([
          { type: "finished", text: "MARKER_TURN1_DONE", usage: { incomplete: true }, isError: false },
        ]);
        const id = turn1.conversationId as string;
        expect(id).toMatch(/^[0-9a-f-]{36}$/);

        // Capture through the agent's conversation store (one session bundle on the host).
        const repository = await mkdtemp(join(firstSandbox.scratch, "host-repository-"));
        const context = async (lease: SandboxLease, label: string) => {
          const staging = join(firstSandbox.scratch, `staging-${label}`);
          await mkdir(staging, { recursive: true });
          return { repository, sandbox: lease, staging, local: variant.host };
        };
        const adapter = agent("unused");
        const storage = adapter.storage as ConversationStore;
        const record = await storage.capture(id, await context(first, "capture"));
        expect((await storage.locate(id, repository)).file).toBe(record.file);
        // Usage is not on Copilot's stdout: it is read from the captured session (two model calls).
        expect(adapter.transcriptUsage?.(await readFile(record.file, "utf8"))).toEqual({
          inputTokens: 2 * DEFAULT_USAGE.inputTokens,
          outputTokens: 2 * DEFAULT_USAGE.outputTokens,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        });

        // Restore into a different home and workspace path, then forget the first sandbox entirely.
        const second = await secondSandbox.lease("second-workspace");
        expect(second.home).not.toBe(first.home);
        expect(second.root).not.toBe(first.root);
        await storage.restore(record, await context(second, "restore"));
        const oldRoot = first.root;
        await first.release();

        const turnsBefore = server.turns().length;
        const turn2 = await runAgentTurn(agent("turn2.log"), second, { prompt: "TURN2: what did you do?", resume: { id } });
        expect(turn2.result.status, turn2.result.stderr).toBe(0);
        expect(turn2.conversationId).toBe(id);
        expect(turn2.of("finished")).toEqual([
          { type: "finished", text: "MARKER_TURN2_DONE history_has_turn1=true", usage: { incomplete: true }, isError: false },
        ]);

        // The model server saw turn 1's history in turn 2's request, and only the new workspace path.
        const resumed = server.turns().slice(turnsBefore);
        expect(resumed).toHaveLength(1);
        expect(resumed[0]?.body).toContain("MARKER_TURN1_DONE");
        expect(resumed[0]?.body).toContain("Create hello.txt containing hi");
        expect(resumed[0]?.body).toContain(second.root);
        expect(resumed[0]?.body).not.toContain(oldRoot);
        expect(server.problems).toEqual([]);
      }, 240_000);

      it("refuses to fork: Copilot 1.0.102 has no fork option", () => {
        const adapter = agent("fork.log");
        expect(adapter.forkable).toBe(false);
        let thrown: unknown;
        try {
          adapter.command({ prompt: "x", root: "/w", home: "/h", resume: { id: "0cb916db-26aa-40f2-86b5-1ba81b225fd2", fork: true } });
        } catch (error) {
          thrown = error;
        }
        expect(isOutpostError(thrown, "configuration")).toBe(true);
      });

      it("classifies the CLI's own output after the provider keeps answering 429 as quota", async () => {
        const lease = await firstSandbox.lease("quota-workspace");
        for (let attempt = 0; attempt < 6; attempt++)
          server.push({ error: { status: 429, message: "Rate limit reached", headers: { "retry-after": "0" } } });
        const run = await runAgentTurn(agent("quota.log"), lease, { prompt: "Create hello.txt containing hi" });
        expect(run.result.status).toBe(1);
        expect(run.of("failure")).toEqual([expect.objectContaining({ classification: "quota" })]);
        expect(run.of("finished")).toEqual([expect.objectContaining({ isError: true })]);
        expect(server.remaining).toBe(0);
      }, 90_000);

      it("never left loopback", () => {
        expect(server.turns().length).toBeGreaterThanOrEqual(3);
        // Every request the CLI made reached the scripted server and was a known route.
        expect(server.requests.every((entry) => entry.kind !== "other" || (entry.status ?? 0) < 400)).toBe(true);
        expect(agent("x").variables).toMatchObject({ COPILOT_OFFLINE: "true", COPILOT_AUTO_UPDATE: "false" });
        if (insideOfflineNamespace()) {
          expect(nonLoopbackInterfaces()).toEqual([]);
          expect(dnsLookups()).toEqual([]);
        } else if (traced) {
          for (const log of ["turn1.log", "turn2.log", "quota.log"]) {
            // The trace is live: it saw the connections to the model server, and nothing else.
            expect(connections(join(traces, log)), log).toContain(`127.0.0.1:${server.port}`);
            expect(nonLoopbackConnections(join(traces, log)), log).toEqual([]);
          }
        }
      });
    },
  );
}
