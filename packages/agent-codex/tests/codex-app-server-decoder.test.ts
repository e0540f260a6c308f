import type { AgentEvent } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { CodexAppServerDecoder, codexAgent } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";

const recorded = (name: string): string[] => fixtureLines("app-server", `codex-0.171.0-${name}.jsonl`);
const decodeAll = (lines: readonly string[], decoder = new CodexAppServerDecoder()): AgentEvent[] =>
  lines.flatMap((line) => decoder.decode(line));
const normalized = (events: readonly AgentEvent[]) => events.filter((event) => event.type !== "raw");
const USAGE = { inputTokens: 24, outputTokens: 14, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

describe("CodexAppServerDecoder on recorded codex app-server 0.171.0 output", () => {
  it("decodes a turn as codex exec's: conversation (thread id), shell call and result, text, usage, finished", () => {
    const diagnostics: string[] = [];
    const events = decodeAll(
      recorded("write-file"),
      new CodexAppServerDecoder(undefined, { diagnostic: (message) => diagnostics.push(message) }),
    );
    const text = "steered=false <outpost>done</outpost>";
    expect(normalized(events)).toEqual([
      { type: "conversation", id: "01a24961-d127-7493-af49-c414b5aa2d5d" },
      {
        type: "tool-call",
        id: "call_2855992dbda7428a8846f198",
        name: "shell",
        input: { command: `/bin/bash -lc "printf '%s' 'hi' > 'hello.txt'"` },
      },
      { type: "tool-result", id: "call_2855992dbda7428a8846f198", output: "" },
      { type: "text", text },
      { type: "usage", usage: USAGE },
      { type: "finished", text, usage: USAGE },
    ]);
    // Every line of the recording is a kind it knows.
    expect(diagnostics).toEqual([]);
  });

  it("a steered turn: the instruction is the server's, the answer and the thread's usage the decoder's", () => {
    const usage = { inputTokens: 12, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
    expect(normalized(decodeAll(recorded("steered")))).toEqual([
      { type: "conversation", id: "01a24961-9dd7-71c0-abfa-e16fbb8f02bf" },
      { type: "text", text: "steered=true <outpost>done</outpost>" },
      { type: "usage", usage },
      { type: "finished", text: "steered=true <outpost>done</outpost>", usage },
    ]);
  });

  it("a continued thread: its usage is left to the rollout (the server reports the thread's running total)", () => {
    const events = normalized(decodeAll(recorded("resumed"), new CodexAppServerDecoder(undefined, { continued: true })));
    expect(events[0]).toEqual({ type: "conversation", id: "01a24961-9dd7-71c0-abfa-e16fbb8f02bf" });
    expect(events.slice(-2)).toEqual([
      { type: "usage", usage: { incomplete: true } },
      { type: "finished", text: "steered=true <outpost>done</outpost>", usage: { incomplete: true } },
    ]);
    // Not continued, only this turn's updates count: the earlier turn's total (reported first on resume) is not taken.
    const own = normalized(decodeAll(recorded("resumed"))).find((event) => event.type === "usage");
    expect(own).toEqual({
      type: "usage",
      usage: { inputTokens: 36, outputTokens: 21, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
  });

  it("a refused model call fails the turn, classified by the same rules as exec (429 → quota)", () => {
    const message = "Quota exceeded. Check your plan and billing details.";
    expect(normalized(decodeAll(recorded("429-quota"))).slice(1)).toEqual([
      { type: "failure", message, classification: "quota" },
      { type: "finished", text: message, isError: true },
    ]);
  });

  it("a turn that could not open (thread/resume of an unknown thread) fails with the server's reason", () => {
    const message = "codex could not open the turn: no rollout found for thread id 01a2495a-0000-7000-8000-000000000000";
    expect(normalized(decodeAll(recorded("unknown-thread")))).toEqual([
      { type: "failure", message },
      { type: "finished", text: message, isError: true },
    ]);
  });

  it("reports an unknown notification once through the diagnostic channel and keeps it raw", () => {
    const diagnostics: string[] = [];
    const decoder = new CodexAppServerDecoder(undefined, { diagnostic: (message) => diagnostics.push(message) });
    const line = '{"method":"thread/brandNew","params":{}}';
    expect(decoder.decode(line)).toEqual([{ type: "raw", line, value: { method: "thread/brandNew", params: {} } }]);
    decoder.decode(line);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toContain("thread/brandNew");
  });

  it("is the agent's decoder for a live turn; exec's otherwise", () => {
    const agent = codexAgent({ version: "0.171.0" });
    const line = recorded("write-file").find((candidate) => candidate.startsWith('{"id":2,'))!;
    expect(agent.createDecoder({ live: true }).decode(line)).toEqual([
      { type: "conversation", id: "01a24961-d127-7493-af49-c414b5aa2d5d" },
    ]);
    expect(agent.createDecoder({}).decode(line)[0]!.type).toBe("raw");
  });
});
