import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { opencodeAgent } from "../src/index.js";
import { decodeChunks, knownEvents } from "@outpost/testkit";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const usage = { inputTokens: 100, outputTokens: 20, reasoningTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };

describe("opencode decoder on recorded opencode 1.18.33 output", () => {
  it("decodes turn 1: conversation id, the write tool call and result, usage per step, text, finished", () => {
    const events = decodeChunks(opencodeAgent().createDecoder(), [fixture("streams/opencode-1.18.33-turn1-tool-call.jsonl")]);
    expect(knownEvents(events)).toEqual([
      { type: "conversation", id: "ses_dc9aa0550ffeSQs24veX6XrWYC" },
      { type: "tool-call", id: "call_1", name: "write", input: { filePath: "hello.txt", content: "hi" } },
      { type: "tool-result", id: "call_1", output: "Wrote file successfully." },
      { type: "usage", usage },
      { type: "text", text: "Done. MARKER_TURN1_DONE" },
      { type: "usage", usage },
      { type: "finished", text: "Done. MARKER_TURN1_DONE" },
    ]);
    // The second step_start carries nothing new and is kept as raw.
    expect(events.filter((event) => event.type === "raw")).toHaveLength(1);
  });

  it("decodes the resumed turn 2 on the same session", () => {
    const events = knownEvents(decodeChunks(opencodeAgent().createDecoder(), [fixture("streams/opencode-1.18.33-turn2-resume.jsonl")]));
    expect(events[0]).toEqual({ type: "conversation", id: "ses_dc9aa0550ffeSQs24veX6XrWYC" });
    expect(events.at(-1)).toEqual({ type: "finished", text: "MARKER_TURN2_DONE history_has_turn1=true" });
  });

  it("reports the new session id of a fork", () => {
    const events = knownEvents(decodeChunks(opencodeAgent().createDecoder(), [fixture("streams/opencode-1.18.33-fork.jsonl")]));
    expect(events[0]).toEqual({ type: "conversation", id: "ses_dc9a701f1ffenlkBJEke5akgbQ" });
  });

  it("reports a failed tool as an error result", () => {
    const events = knownEvents(decodeChunks(opencodeAgent().createDecoder(), [fixture("streams/opencode-1.18.33-tool-error.jsonl")]));
    expect(events).toContainEqual({ type: "tool-call", id: "call_1", name: "read", input: { filePath: "/nonexistent/missing.txt" } });
    expect(events).toContainEqual({ type: "tool-result", id: "call_1", output: "File not found: /nonexistent/missing.txt", isError: true });
  });

  it("gives the same events whatever the chunking", () => {
    const text = fixture("streams/opencode-1.18.33-turn1-tool-call.jsonl");
    expect(decodeChunks(opencodeAgent().createDecoder(), text.split(""))).toEqual(decodeChunks(opencodeAgent().createDecoder(), [text]));
  });

  it("keeps a reasoning line (shown with --thinking) as raw, and decodes a tool still pending as a call only", () => {
    const decoder = opencodeAgent().createDecoder();
    const reasoning = JSON.stringify({ type: "reasoning", sessionID: "ses_a", part: { type: "reasoning", text: "hmm" } });
    expect(decoder.decode(reasoning)).toEqual([{ type: "conversation", id: "ses_a" }]);
    expect(decoder.decode(reasoning)).toEqual([{ type: "raw", line: reasoning, value: JSON.parse(reasoning) }]);
    const running = JSON.stringify({
      type: "tool_use",
      sessionID: "ses_a",
      part: { tool: "bash", callID: "c", state: { status: "running", input: { command: "ls" } } },
    });
    expect(decoder.decode(running)).toEqual([{ type: "tool-call", id: "c", name: "bash", input: { command: "ls" } }]);
  });
});
