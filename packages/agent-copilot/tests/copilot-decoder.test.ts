import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { copilotAgent } from "../src/index.js";
import { decodeChunks, knownEvents } from "@outpost/testkit";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

describe("copilot decoder on recorded Copilot CLI 1.0.102 output", () => {
  it("decodes turn 1: prompt, the create tool call and its result, text, conversation id, finished", () => {
    const events = decodeChunks(copilotAgent().createDecoder(), [fixture("streams/copilot-1.0.102-turn1-tool-call.jsonl")]);
    expect(knownEvents(events)).toEqual([
      { type: "prompt", text: "Create hello.txt containing hi\n" },
      { type: "tool-call", id: "call_1", name: "create", input: { path: "/tmp/f2/ws1/hello.txt", file_text: "hi" } },
      { type: "tool-result", id: "call_1", output: "Created file /tmp/f2/ws1/hello.txt with 2 characters" },
      { type: "text", text: "Done. MARKER_TURN1_DONE", delta: true },
      { type: "text", text: "Done. MARKER_TURN1_DONE" },
      { type: "conversation", id: "4adfb677-3a6c-4138-9a61-137e9e079af9" },
      { type: "finished", text: "Done. MARKER_TURN1_DONE", usage: { incomplete: true }, isError: false },
    ]);
    // Every other line (skills, model calls, turn markers…) is kept, not dropped.
    const lines = fixture("streams/copilot-1.0.102-turn1-tool-call.jsonl").trim().split("\n");
    const raw = events.filter((event) => event.type === "raw");
    expect(raw.length + 6).toBe(lines.length); // 7 known events come from 6 lines (result → 2)
    expect(raw.every((event) => event.type === "raw" && typeof event.value === "object")).toBe(true);
  });

  it("decodes the resumed turn 2 with the same conversation id", () => {
    const events = knownEvents(decodeChunks(copilotAgent().createDecoder(), [fixture("streams/copilot-1.0.102-turn2-resume.jsonl")]));
    expect(events).toContainEqual({ type: "conversation", id: "4adfb677-3a6c-4138-9a61-137e9e079af9" });
    expect(events.at(-1)).toEqual({
      type: "finished",
      text: "MARKER_TURN2_DONE history_has_turn1=true",
      usage: { incomplete: true },
      isError: false,
    });
  });

  it("gives the same events whatever the chunking, down to one byte at a time", () => {
    const text = fixture("streams/copilot-1.0.102-turn1-tool-call.jsonl");
    const whole = decodeChunks(copilotAgent().createDecoder(), [text]);
    const bytes = decodeChunks(copilotAgent().createDecoder(), text.split(""));
    expect(bytes).toEqual(whole);
  });

  it("reads usage records when a session's events.jsonl is decoded as a stream", () => {
    const events = decodeChunks(copilotAgent().createDecoder(), [fixture("streams/copilot-1.0.102-events-after-turn2.jsonl")]);
    const usage = events.filter((event) => event.type === "usage");
    expect(usage).toHaveLength(3);
    expect(usage[0]).toEqual({ type: "usage", usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 } });
  });

  it("decodes the ephemeral assistant.usage event (shape taken from the 1.0.102 CLI source, not recorded)", () => {
    const line = JSON.stringify({
      type: "assistant.usage",
      data: { model: "m", inputTokens: 5, outputTokens: 2, cacheReadTokens: 1 },
      ephemeral: true,
    });
    expect(copilotAgent().createDecoder().decode(line)).toEqual([
      { type: "usage", usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 1 } },
    ]);
  });

  it("reports a failed tool as an error result", () => {
    const decoder = copilotAgent().createDecoder();
    const line = JSON.stringify({
      type: "tool.execution_complete",
      data: { toolCallId: "c9", success: false, error: { message: "Permission denied" } },
    });
    expect(decoder.decode(line)).toEqual([{ type: "tool-result", id: "c9", output: "Permission denied", isError: true }]);
  });

  it("marks a non-zero exit in the result line as an error finish", () => {
    const decoder = copilotAgent().createDecoder();
    const events = decoder.decode(JSON.stringify({ type: "result", sessionId: "6260787d-b167-46de-9318-8093c7b6d308", exitCode: 1 }));
    expect(events).toEqual([
      { type: "conversation", id: "6260787d-b167-46de-9318-8093c7b6d308" },
      { type: "finished", usage: { incomplete: true }, isError: true },
    ]);
  });
});
