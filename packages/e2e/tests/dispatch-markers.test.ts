import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { isOutpostError, type AgentAdapter, type AgentEvent } from "@outpost/core";
import { scratchRepository, scriptAgent } from "../src/index.js";

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

/** A CLI that streams its answer as text deltas (one JSON line each), then stays running without a final event. */
function deltaAgent(deltas: readonly string[]): AgentAdapter {
  const lines = deltas.map((text) => JSON.stringify({ delta: text })).join("\n");
  return {
    ...scriptAgent({ directory: agentDirectory }),
    requiresFinishedEvent: false,
    command: () => ({ executable: "sh", arguments: ["-c", `printf '%s\\n' "$LINES"; exec sleep 600`], variables: { LINES: lines } }),
    createDecoder: () => ({
      decode: (line: string): AgentEvent[] => [{ type: "text", text: (JSON.parse(line) as { delta: string }).delta, delta: true }],
    }),
  };
}

describe("end markers and the final event", () => {
  it("requiresFinishedEvent: a marker without the final event does not match, so it starts no settle (page 003)", async () => {
    const repository = scratchRepository();
    // The agent prints the marker and hangs: only the deadline ends it, never a settle after the marker.
    const error = await rejection(
      dispatch({
        agent: scriptAgent({ directory: agentDirectory, behaviour: { HANG: "after-marker" } }),
        brief: "work",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        settleMs: 300,
        deadlineMs: 5_000,
      }),
    );
    expect(isOutpostError(error, "timeout"), String(error)).toBe(true);
  });

  it("finds an end marker split across text deltas: the settle starts and the turn succeeds", async () => {
    const repository = scratchRepository();
    const result = await dispatch({
      agent: deltaAgent(["all good <outp", "ost>do", "ne</outpost>"]),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      settleMs: 200,
      idleMs: 120_000,
      idleWarningMs: 60_000,
    });
    expect(result.completed).toBe(true);
    expect(result.turns[0]!.settled).toBe(true);
    expect(result.turns[0]!.marker).toBe("<outpost>done</outpost>");
    expect(result.text).toBe("all good <outpost>done</outpost>");
  });
});

describe("idle warning interval", () => {
  it("refuses idleWarningMs >= idleMs with code configuration before allocating", async () => {
    const repository = scratchRepository();
    for (const idleWarningMs of [5_000, 9_000]) {
      const error = await rejection(
        dispatch({
          agent: scriptAgent({ directory: agentDirectory }),
          brief: "x",
          repository,
          sandboxProvider: localProvider({ home: "private" }),
          idleMs: 5_000,
          idleWarningMs,
        }),
      );
      expect(isOutpostError(error, "configuration")).toBe(true);
    }
  });

  it("warns once when the default warning interval cannot elapse before idleMs", async () => {
    const repository = scratchRepository();
    const warnings: string[] = [];
    const result = await dispatch({
      agent: scriptAgent({ directory: agentDirectory }),
      brief: "x",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      idleMs: 30_000,
      warn: (message) => warnings.push(message),
    });
    expect(result.completed).toBe(true);
    expect(warnings.filter((message) => message.includes("No idle warning"))).toHaveLength(1);
  });
});
