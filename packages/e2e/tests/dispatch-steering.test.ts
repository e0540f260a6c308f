import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeAgent } from "@outpost/agent-claude";
import { copilotAgent } from "@outpost/agent-copilot";
import { geminiAgent } from "@outpost/agent-gemini";
import { opencodeAgent } from "@outpost/agent-opencode";
import { isOutpostError, type AgentAdapter, type OutpostError } from "@outpost/core";
import {
  createObservationHub,
  createReplayAgent,
  createSteering,
  dispatch,
  localJournalTransport,
  readJournal,
  type DispatchEvent,
  type Steering,
  type SteeringReceipt,
} from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { writeFileStep, type ModelRequest, type ModelServer, type Responder, type ScriptStep } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";
import { missingCli, pathWithClis } from "./support/cli-bin.js";
import { withModelServer } from "./support/with-model-server.js";

// Steering through dispatch() with the real CLIs against the scripted model server: injected into a running
// Claude Code turn (stream-json input), resumed for Copilot, OpenCode and Gemini (stopped, then their
// conversation resumed); each resumed run is recorded and replayed with its steering as recorded. Codex takes
// instructions through its app-server: dispatch-steering-codex.test.ts.
const INSTRUCTION = "STEERING-7: write bonjour instead";
const provider = () => localProvider({ home: "private", variables: { PATH: pathWithClis() } });
const COPILOT_CACHE = join(tmpdir(), "outpost-e2e-copilot-cache");

async function failure(promise: Promise<unknown>): Promise<OutpostError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isOutpostError(error)) throw new Error(`expected an OutpostError, got ${String(error)}`);
  return error;
}

const sawInstruction = (request: ModelRequest): boolean => request.transcript.includes(INSTRUCTION);

/**
 * The first model call sends the instruction while the agent's turn runs and writes hello.txt with a tool call.
 * A later call that does not carry the instruction is held until the instruction was delivered (at most
 * `holdMs`), so a turn that is to be stopped does not finish first; every call answers whether it saw it.
 */
function steeredResponder(steering: Steering, receipts: Promise<SteeringReceipt>[], holdMs: number): Responder {
  return async (request): Promise<ScriptStep> => {
    if (receipts.length === 0) {
      receipts.push(steering.send(INSTRUCTION));
      return writeFileStep("hello.txt", "hi");
    }
    if (!sawInstruction(request)) await Promise.race([receipts[0]!.catch(() => undefined), delay(holdMs)]);
    return { text: `steered=${sawInstruction(request)} <outpost>done</outpost>` };
  };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const claudeUnavailable = missingCli("claude");

(claudeUnavailable ? describe.skip : describe)(
  `steering with the real Claude Code CLI${claudeUnavailable ? ` (unavailable: ${claudeUnavailable})` : ""}`,
  () => {
    const claude = (server: ModelServer) => claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-outpost-test", maxRetries: 0 });

    it("injects an instruction into the running turn through stream-json input: one turn, a steer event", async () => {
      const steering = createSteering();
      const receipts: Promise<SteeringReceipt>[] = [];
      await withModelServer(steeredResponder(steering, receipts, 2_000), async (server) => {
        const hub = createObservationHub();
        const events: DispatchEvent[] = [];
        hub.subscribe((event) => void events.push(event));
        const result = await dispatch({
          agent: claude(server),
          brief: "Create hello.txt containing hi.",
          repository: scratchRepository(),
          sandboxProvider: provider(),
          steering,
          observation: hub,
        });
        expect(await receipts[0]).toEqual({ delivery: "injected", dispatchId: result.dispatchId, pass: 1 });
        // The CLI put the instruction into the running turn: the model's next call carried it, in the same process.
        expect(result.turns).toHaveLength(1);
        expect(result.turns[0]!.interrupted).toBeUndefined();
        expect(result.text).toContain("steered=true");
        expect(
          server
            .turns()
            .slice(1)
            .some((logged) => sawInstruction(logged.model!)),
        ).toBe(true);
        expect(events.find((event) => event.type === "steer")).toMatchObject({ delivery: "injected", pass: 1, text: INSTRUCTION });
        expect(server.problems).toEqual([]);
      });
    }, 180_000);

    it("after the turns ended, and after close(), send fails with code steering and says why", async () => {
      const steering = createSteering();
      await withModelServer(
        () => ({ text: "Done. <outpost>done</outpost>" }),
        async (server) => {
          await dispatch({
            agent: claude(server),
            brief: "Say hello.",
            repository: scratchRepository(),
            sandboxProvider: provider(),
            steering,
          });
          const late = await failure(steering.send(INSTRUCTION));
          expect(late.code).toBe("steering");
          expect(late.message).toMatch(/no dispatch is running with this steering/);
          steering.close();
          const closed = await failure(steering.send(INSTRUCTION));
          expect(closed.code).toBe("steering");
          expect(closed.message).toMatch(/closed/);
          expect(server.turns().every((logged) => !sawInstruction(logged.model!))).toBe(true);
        },
      );
    }, 120_000);

    it("a steering closed before any send changes nothing in the dispatch; sends are refused", async () => {
      const steering = createSteering();
      steering.close();
      expect(steering.closed).toBe(true);
      await withModelServer(
        () => ({ text: "Done. <outpost>done</outpost>" }),
        async (server) => {
          const result = await dispatch({
            agent: claude(server),
            brief: "Say hello.",
            repository: scratchRepository(),
            sandboxProvider: provider(),
            steering,
          });
          expect(result.completed).toBe(true);
          expect((await failure(steering.send(INSTRUCTION))).code).toBe("steering");
        },
      );
    }, 120_000);
  },
);

/** Resumable CLIs without live input: the instruction stops the agent and resumes its conversation. */
const resumable: readonly { name: string; executable: string; agent: (server: ModelServer) => AgentAdapter }[] = [
  {
    name: "Copilot",
    executable: "copilot",
    agent: (server) =>
      copilotAgent({ endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" }, model: "fake-model", cacheDirectory: COPILOT_CACHE }),
  },
  {
    name: "OpenCode",
    executable: "opencode",
    agent: (server) => opencodeAgent({ endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" }, model: "fake-model" }),
  },
  {
    name: "Gemini",
    executable: "gemini",
    agent: (server) => geminiAgent({ baseUrl: server.url, apiKey: "outpost-test-key", model: "gemini-2.5-flash", maxAttempts: 1 }),
  },
];

for (const subject of resumable) {
  const unavailable = missingCli(subject.executable);
  (unavailable ? describe.skip : describe)(
    `steering the real ${subject.name} CLI${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
    () => {
      it(`${subject.name} resumes: the running turn is stopped (interrupted: steering), the next turn resumes its conversation with the instruction; a replay plays it as recorded`, async () => {
        await mkdir(COPILOT_CACHE, { recursive: true });
        const steering = createSteering();
        const receipts: Promise<SteeringReceipt>[] = [];
        const repository = scratchRepository();
        const result = await withModelServer(steeredResponder(steering, receipts, 60_000), async (server) => {
          const hub = createObservationHub();
          const events: DispatchEvent[] = [];
          hub.subscribe((event) => void events.push(event));
          const result = await dispatch({
            agent: subject.agent(server),
            brief: "Create hello.txt containing hi.",
            repository,
            sandboxProvider: provider(),
            steering,
            observation: hub,
          });
          expect(await receipts[0]).toEqual({ delivery: "resumed", dispatchId: result.dispatchId, pass: 1 });
          expect(result.turns.map((turn) => turn.interrupted)).toEqual(["steering", undefined]);
          expect(result.turns[1]!.steering).toEqual([INSTRUCTION]);
          expect(result.turns[1]!.conversationId).toBe(result.turns[0]!.conversationId);
          expect(result.text).toContain("steered=true");
          expect(events.find((event) => event.type === "steer")).toMatchObject({ delivery: "resumed", pass: 1, text: INSTRUCTION });
          return result;
        });
        // No model server now: the journal replays the stopped turn, then the resumption with the recorded instruction.
        const journal = await readJournal({ transport: localJournalTransport(repository), reference: result.journal! });
        const agent = createReplayAgent({ journal });
        expect(agent.turns.map((turn) => turn.steering)).toEqual([undefined, [INSTRUCTION]]);
        expect(agent.pendingSteering()).toBeUndefined();
        const steers: unknown[] = [];
        const replayed = await dispatch({
          agent,
          brief: "Create hello.txt containing hi.",
          repository,
          sandboxProvider: localProvider({ home: "private" }),
          logging: false,
          observe: (observation) => {
            if (observation.event.type === "steer") steers.push(observation.event);
          },
        });
        expect(agent.remainingTurns).toBe(0);
        expect(replayed.turns.map((turn) => [turn.pass, turn.interrupted, turn.steering])).toEqual([
          [1, "steering", undefined],
          [1, undefined, [INSTRUCTION]],
        ]);
        expect(replayed.text).toBe(result.text);
        expect(replayed.usage).toEqual(result.usage);
        expect(steers).toEqual([expect.objectContaining({ type: "steer", delivery: "resumed", text: INSTRUCTION })]);
      }, 240_000);
    },
  );
}
