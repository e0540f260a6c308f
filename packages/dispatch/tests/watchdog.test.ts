import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentAdapter, AgentEvent } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { createSteering, dispatch, type AgentObservation } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

const repository = scratchRepository("outpost-watchdog-");
afterAll(() => rmSync(repository, { recursive: true, force: true }));

/**
 * A real agent process that loops: it names its conversation, then prints `line` (an event) every 30 ms
 * `times` times (forever when 0), then finishes. Resumed, it answers the instruction it was resumed with.
 */
function loopingAgent(line: AgentEvent | undefined, times = 0): AgentAdapter {
  const program = `
const [event, times, resume, prompt] = [process.argv[1], Number(process.argv[2]), process.argv[3], process.argv[4]];
const print = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
print({ type: "conversation", id: resume || "loop-1" });
if (resume) { print({ type: "finished", text: "resumed with: " + prompt }); process.exit(0); }
let sent = 0;
const tick = () => {
  if (times > 0 && sent === times) { print({ type: "finished", text: "done looping" }); return; }
  if (event !== "null") print(JSON.parse(event));
  sent += 1;
  setTimeout(tick, 30);
};
tick();
if (times === 0) setInterval(() => {}, 1000);
`;
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "looping",
    executable: process.execPath,
    resumable: true,
    command: (turn) => ({
      executable: process.execPath,
      arguments: ["-e", program, JSON.stringify(line ?? null), String(times), turn.resume?.id ?? "", turn.prompt],
      variables: {},
    }),
    createDecoder: () => ({ decode: (text) => [JSON.parse(text) as AgentEvent] }),
  };
}

const failure = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error("the dispatch succeeded");
    },
    (caught: unknown) => caught as { code: string; details: { watchdog: unknown; recovery?: unknown } },
  );
const readCall: AgentEvent = { type: "tool-call", name: "read", input: { path: "a.txt", lines: [1, 2] } };

describe("watchdog", () => {
  it("stops an agent repeating the same tool call with code stuck, reported as a watchdog event", async () => {
    const seen: AgentObservation[] = [];
    const started = Date.now();
    const error = await failure(
      dispatch({
        agent: loopingAgent(readCall),
        brief: "loop",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        watchdog: { repeatedToolCalls: 4 },
        observe: (observation) => seen.push(observation),
      }),
    );
    expect(error.code).toBe("stuck");
    expect(error.details.watchdog).toMatchObject({ rule: "repeatedToolCall", count: 4, action: "stop", pass: 1 });
    expect(error.details.recovery).toBeDefined();
    expect(seen.filter((observation) => observation.type === "tool-call")).toHaveLength(4);
    expect(seen.find((observation) => observation.type === "watchdog")).toMatchObject({ rule: "repeatedToolCall", action: "stop" });
    // Well before the turn's own timers (idle 10 minutes, deadline one hour).
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);

  it("stops an agent that sends no new event for silenceMs, within about that window", async () => {
    const started = Date.now();
    const error = await failure(
      dispatch({
        agent: loopingAgent(undefined),
        brief: "hang",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        watchdog: { silenceMs: 500 },
      }),
    );
    expect(error.code).toBe("stuck");
    expect(error.details.watchdog).toMatchObject({ rule: "silence", action: "stop" });
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it("warn: the turn goes on; every repeat past the limit is a warning and in result.watchdog", async () => {
    const warnings: string[] = [];
    const result = await dispatch({
      agent: loopingAgent({ type: "text", text: "Let me check the file again." }, 6),
      brief: "repeat",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      until: [],
      watchdog: { repeatedTexts: 3, action: "warn" },
      warn: (message) => warnings.push(message),
    });
    expect(result.text).toBe("done looping");
    expect(result.watchdog).toMatchObject([
      { rule: "repeatedText", count: 3, action: "warn", subject: "Let me check the file again." },
      { rule: "repeatedText", count: 3, action: "warn" },
    ]);
    expect(warnings.filter((message) => message.startsWith("Watchdog (pass 1)"))).toHaveLength(2);
  }, 30_000);

  it("steer: the instruction reaches the looping agent, which is resumed with it", async () => {
    const steering = createSteering();
    const result = await dispatch({
      agent: loopingAgent(readCall),
      brief: "loop",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      until: [],
      steering,
      watchdog: { repeatedToolCalls: 3, action: "steer", message: "Stop reading a.txt." },
    });
    expect(result.watchdog?.[0]).toMatchObject({ rule: "repeatedToolCall", action: "steer" });
    expect(result.text).toBe("resumed with: Stop reading a.txt.");
  }, 30_000);

  it("refuses a malformed watchdog, and steer without steering (code configuration)", async () => {
    for (const watchdog of [{ repeatedToolCalls: 1 }, { silenceMs: 0 }, { action: "kill" }, { action: "steer" }, { repeats: 3 }])
      await expect(
        dispatch({ agent: loopingAgent(readCall), brief: "x", repository, sandboxProvider: localProvider(), watchdog: watchdog as never }),
      ).rejects.toMatchObject({ code: "configuration" });
  }, 30_000);
});
