import { LineSplitter } from "@outpost/core";
import type { AgentEvent } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { ClaudeDecoder } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";
import { seededRandom } from "@outpost/testkit";

const decodeAll = (lines: readonly string[]): AgentEvent[] => {
  const decoder = new ClaudeDecoder();
  return lines.flatMap((line) => decoder.decode(line));
};

describe("ClaudeDecoder on recorded 2.1.332 streams", () => {
  it("turns a tool-call turn into conversation, tool call, tool result, text, usage, finished", () => {
    const events = decodeAll(fixtureLines("streams", "claude-2.1.332-write-file.jsonl"));
    expect(events.map((event) => event.type)).toEqual(["conversation", "tool-call", "tool-result", "text", "usage", "finished"]);
    expect(events[0]).toEqual({ type: "conversation", id: "a1cda014-f4ae-4fa0-9958-c0b51a02a8f5" });
    expect(events[1]).toMatchObject({
      type: "tool-call",
      name: "Write",
      input: { file_path: "/tmp/f1/w1/hello.txt", content: "hi" },
      id: expect.stringMatching(/^toolu_/),
    });
    expect(events[2]).toMatchObject({
      type: "tool-result",
      id: (events[1] as { id: string }).id,
      output: expect.stringContaining("File created successfully"),
    });
    expect(events[3]).toEqual({ type: "text", text: "MARKER_TURN1_DONE" });
    expect(events[4]).toEqual({
      type: "usage",
      usage: { inputTokens: 24, outputTokens: 14, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: expect.any(Number) },
    });
    expect(events[5]).toMatchObject({ type: "finished", text: "MARKER_TURN1_DONE", usage: { inputTokens: 24 } });
    expect((events[5] as { isError?: boolean }).isError).toBeUndefined();
  });

  it("marks failed tool results as errors and keeps text and tool calls of the same turn", () => {
    const events = decodeAll(fixtureLines("streams", "claude-2.1.332-tool-errors.jsonl"));
    const results = events.filter((event) => event.type === "tool-result");
    expect(results).toEqual([
      expect.objectContaining({ output: "Exit code 3\nboom", isError: true }),
      expect.objectContaining({ output: expect.stringContaining("File does not exist"), isError: true }),
    ]);
    expect(events.filter((event) => event.type === "tool-call").map((event) => (event as { name: string }).name)).toEqual(["Bash", "Read"]);
    expect(events.filter((event) => event.type === "text").map((event) => (event as { text: string }).text)).toEqual([
      "Let me try a command that fails.",
      "Both failed, as expected. DONE",
    ]);
  });

  it("reports a refused API call once, classified, and a finished event marked as error", () => {
    const events = decodeAll(fixtureLines("failures", "claude-2.1.332-429.stdout.jsonl"));
    expect(events.filter((event) => event.type === "failure")).toEqual([
      { type: "failure", message: expect.stringContaining("API Error: Request rejected (429)"), classification: "quota" },
    ]);
    expect(events.filter((event) => event.type === "raw").map((event) => (event as { value: { subtype: string } }).value.subtype)).toEqual([
      "api_retry",
    ]);
    expect(events.at(-1)).toMatchObject({ type: "finished", isError: true });
    expect(events.some((event) => event.type === "text")).toBe(false);
  });

  it("decodes the same events whatever the chunk boundaries of the stream", () => {
    const lines = fixtureLines("streams", "claude-2.1.332-tool-errors.jsonl");
    const expected = decodeAll(lines);
    const text = `${lines.join("\n")}\n`;
    const random = seededRandom(6);
    for (let round = 0; round < 20; round++) {
      const splitter = new LineSplitter();
      const decoder = new ClaudeDecoder();
      const events: AgentEvent[] = [];
      for (let offset = 0; offset < text.length;) {
        const size = 1 + Math.floor(random() * 400);
        for (const line of splitter.push(text.slice(offset, offset + size))) events.push(...decoder.decode(line));
        offset += size;
      }
      for (const line of splitter.flush()) events.push(...decoder.decode(line));
      expect(events).toEqual(expected);
    }
  });

  it("keeps thinking blocks and unknown system lines as raw", () => {
    const decoder = new ClaudeDecoder();
    const thinking = '{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"hi"}]}}';
    expect(decoder.decode(thinking)).toEqual([
      { type: "text", text: "hi" },
      { type: "raw", line: thinking, value: JSON.parse(thinking) },
    ]);
    const status = '{"type":"system","subtype":"status","status":"compacting"}';
    expect(decoder.decode(status)).toEqual([{ type: "raw", line: status, value: JSON.parse(status) }]);
    expect(decoder.decode('{"type":"user","message":{"role":"user","content":"replayed prompt"}}')).toEqual([
      { type: "prompt", text: "replayed prompt" },
    ]);
  });

  it("reports an error result without an API error message as a failure", () => {
    const line =
      '{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s","usage":{"input_tokens":1,"output_tokens":2}}';
    expect(new ClaudeDecoder().decode(line)).toEqual([
      { type: "usage", usage: { inputTokens: 1, outputTokens: 2 } },
      { type: "failure", message: "error_max_turns" },
      { type: "finished", usage: { inputTokens: 1, outputTokens: 2 }, isError: true },
    ]);
  });

  it("reports each turn on its own when one decoder reads several turns (nothing carried over)", () => {
    const lines = fixtureLines("failures", "claude-2.1.332-429.stdout.jsonl");
    const once = decodeAll(lines);
    const decoder = new ClaudeDecoder();
    const twice = [...lines, ...lines].flatMap((line) => decoder.decode(line));
    expect(twice.slice(once.length)).toEqual(once);
  });
});
