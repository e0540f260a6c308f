import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexAgent } from "@outpost/agent-codex";
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
import { type ModelRequest, type ModelServer, type Responder, type ScriptStep } from "@outpost/testkit/model-server";
import { gitIn, scratchRepository } from "../src/index.js";
import { missingCli, pathWithClis } from "./support/cli-bin.js";
import { withModelServer } from "./support/with-model-server.js";

// Steering injected into a running Codex turn through `codex app-server` (`turn/steer`), with the real CLI
// against the scripted model server; then the thread it wrote continues through `codex exec resume` and
// through the app-server again (`thread/resume`), each turn captured and restored from the conversation home.
const FIRST = "STEERING-7: write bonjour instead";
const SECOND = "STEERING-8: and say au revoir";
const provider = () => localProvider({ home: "private", variables: { PATH: pathWithClis() } });
const codex = (server: ModelServer) =>
  codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "outpost-test-key", model: "gpt-5.5", maxRetries: 0 });
const saw = (request: ModelRequest, instruction: string): boolean => request.transcript.includes(instruction);

/** The shell call that writes hello.txt and commits it (codex offers `exec_command`). */
const commitStep: ScriptStep = {
  toolCall: { name: "exec_command", arguments: { cmd: "printf hi > hello.txt && git add hello.txt && git commit -qm 'Add hello.txt'" } },
};

/**
 * First call: the shell tool commits hello.txt. The next call (the tool's output going back) sends `instruction`
 * and answers once it was delivered, so it arrives while the turn runs; every later answer says whether the
 * request carried it, with the end marker once it did.
 */
function steeredResponder(steering: Steering, instruction: string, receipts: Promise<SteeringReceipt>[], tool: boolean): Responder {
  let calls = 0;
  return async (request): Promise<ScriptStep> => {
    calls += 1;
    if (tool && calls === 1) return commitStep;
    if (receipts.length === 0) {
      receipts.push(steering.send(instruction));
      await Promise.race([receipts[0]!.catch(() => undefined), delay(30_000)]);
    }
    const seen = saw(request, instruction);
    return { text: `steered=${seen} history=${saw(request, FIRST)}${seen ? " <outpost>done</outpost>" : ""}` };
  };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const unavailable = missingCli("codex");

(unavailable ? describe.skip : describe)(
  `steering the real Codex CLI through its app-server${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
  () => {
    it("injects an instruction into the running turn (turn/steer): one turn that commits; exec and app-server continue the thread", async () => {
      const repository = scratchRepository();
      // Taken before the run: where its replay starts from the same baseline.
      const baseline = mkdtempSync(join(tmpdir(), "outpost-codex-steer-baseline-"));
      execFileSync("git", ["clone", "--quiet", repository, baseline]);
      const conversationHome = mkdtempSync(join(tmpdir(), "outpost-codex-home-"));
      const steering = createSteering();
      const receipts: Promise<SteeringReceipt>[] = [];
      const first = await withModelServer(steeredResponder(steering, FIRST, receipts, true), async (server) => {
        const hub = createObservationHub();
        const events: DispatchEvent[] = [];
        hub.subscribe((event) => void events.push(event));
        const result = await dispatch({
          agent: codex(server),
          brief: "Create hello.txt containing hi and commit it.",
          repository,
          conversationHome,
          sandboxProvider: provider(),
          branch: { mode: "integrate" },
          steering,
          observation: hub,
          logging: { replayable: true },
        });
        expect(await receipts[0]).toEqual({ delivery: "injected", dispatchId: result.dispatchId, pass: 1 });
        expect(events.find((event) => event.type === "steer")).toMatchObject({ delivery: "injected", pass: 1, text: FIRST });
        // One turn, not stopped: the app-server put the instruction into it, and the model's next call carried it.
        expect(result.turns).toHaveLength(1);
        expect(result.turns[0]!.interrupted).toBeUndefined();
        expect(result.text).toContain("steered=true");
        const requests = server.turns().map((logged) => logged.model!);
        expect(requests.length).toBeGreaterThanOrEqual(3);
        expect(saw(requests[0]!, FIRST)).toBe(false);
        expect(saw(requests.at(-1)!, FIRST)).toBe(true);
        // The turn ended normally: the commit came back, the usage is the app-server's.
        expect(result.completed).toBe(true);
        expect(result.commits).toHaveLength(1);
        expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("Add hello.txt");
        expect(readFileSync(join(repository, "hello.txt"), "utf8")).toBe("hi");
        expect(result.usage.outputTokens).toBeGreaterThan(0);
        expect(result.conversation?.format).toBe("codex");
        expect(existsSync(result.conversation!.file)).toBe(true);
        expect(server.problems).toEqual([]);
        return result;
      });

      // The injection was journaled where it arrived: a replay reports it there again, and rebuilds the commit.
      const journal = await readJournal({ transport: localJournalTransport(repository), reference: first.journal! });
      const replayed: string[] = [];
      const replay = await dispatch({
        agent: createReplayAgent({ journal }),
        repository: baseline,
        sandboxProvider: localProvider(),
        logging: false,
        observe: (observation) =>
          void replayed.push(observation.event.type === "steer" ? `steer:${observation.event.text}` : observation.event.type),
      });
      expect(replayed).toContain(`steer:${FIRST}`);
      expect(replay.commits).toEqual(first.commits);

      // Without steering the next turn runs `codex exec resume` on the captured app-server rollout.
      const second = await withModelServer(
        (request) => ({ text: `history=${saw(request, FIRST)} <outpost>done</outpost>` }),
        (server) =>
          dispatch({
            agent: codex(server),
            brief: "TURN2: what did you do?",
            repository,
            conversationHome,
            sandboxProvider: provider(),
            continuation: { id: first.conversationId! },
          }),
      );
      expect(second.conversationId).toBe(first.conversationId);
      expect(second.text).toContain("history=true");

      // With steering it runs the app-server again: `thread/resume` of the same thread, steered once more.
      const again = createSteering();
      const later: Promise<SteeringReceipt>[] = [];
      const third = await withModelServer(steeredResponder(again, SECOND, later, false), (server) =>
        dispatch({
          agent: codex(server),
          brief: "TURN3: anything else?",
          repository,
          conversationHome,
          sandboxProvider: provider(),
          continuation: { id: first.conversationId! },
          steering: again,
        }),
      );
      expect(await later[0]).toEqual({ delivery: "injected", dispatchId: third.dispatchId, pass: 1 });
      expect(third.conversationId).toBe(first.conversationId);
      expect(third.turns).toHaveLength(1);
      expect(third.text).toContain("steered=true history=true");
      // A continued turn's own usage comes from the captured rollout (the app-server reports the thread's total).
      expect(third.usage.incomplete).toBeUndefined();
      expect(third.usage.outputTokens).toBeGreaterThan(0);
      const rollout = readFileSync(third.conversation!.file, "utf8");
      for (const text of [FIRST, "TURN2: what did you do?", SECOND]) expect(rollout).toContain(text);
    }, 240_000);
  },
);
