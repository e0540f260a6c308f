import { LineSplitter } from "@outpost/core";
import type { AgentEvent } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { GeminiDecoder } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";
import { seededRandom } from "@outpost/testkit";

const decodeAll = (lines: readonly string[]): AgentEvent[] => {
  const decoder = new GeminiDecoder();
  return lines.flatMap((line) => decoder.decode(line));
};

describe("GeminiDecoder on recorded 0.61.0 streams", () => {
  it("turns a tool-call turn into conversation, prompt, tool call and result, text delta, usage, finished", () => {
    const events = decodeAll(fixtureLines("streams", "gemini-0.61.0-write-file.jsonl"));
    expect(events.map((event) => event.type)).toEqual(["conversation", "prompt", "tool-call", "tool-result", "text", "usage", "finished"]);
    expect(events[0]).toEqual({ type: "conversation", id: "9119d341-62ba-4d07-ab97-cb4bc2b38ed2" });
    expect(events[1]).toEqual({ type: "prompt", text: "Create hello.txt containing hi\n" });
    expect(events[2]).toMatchObject({
      type: "tool-call",
      name: "write_file",
      input: { file_path: "hello.txt", content: "hi" },
      id: expect.stringMatching(/^write_file__/),
    });
    expect(events[3]).toMatchObject({ type: "tool-result", id: (events[2] as { id: string }).id, output: "success" });
    expect(events[4]).toEqual({ type: "text", text: "MARKER_TURN1_DONE", delta: true });
    expect(events[5]).toEqual({ type: "usage", usage: { inputTokens: 29, outputTokens: 17, cacheReadTokens: 0 } });
    expect(events[6]).toMatchObject({ type: "finished", text: "MARKER_TURN1_DONE" });
    expect((events[6] as { isError?: boolean }).isError).toBeUndefined();
  });

  it("marks error tool results and joins assistant deltas into the finished text", () => {
    const events = decodeAll(fixtureLines("streams", "gemini-0.61.0-tool-errors.jsonl"));
    expect(events.filter((event) => event.type === "tool-result")).toEqual([
      expect.objectContaining({ output: "boom" }),
      expect.objectContaining({ output: expect.stringContaining("Path not in workspace"), isError: true }),
    ]);
    expect(events.at(-1)).toMatchObject({ type: "finished", text: "Let me try a command that fails.Both failed, as expected. DONE" });
  });

  it("reports an error result as a classified failure and an error finish", () => {
    const events = decodeAll(fixtureLines("failures", "gemini-0.61.0-429.stdout.jsonl"));
    expect(events.filter((event) => event.type === "failure")).toEqual([
      { type: "failure", message: expect.stringContaining("request a quota increase"), classification: "quota" },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "finished", isError: true, text: expect.stringContaining("Rate limit") });
  });

  it("decodes the same events whatever the chunk boundaries", () => {
    const lines = fixtureLines("streams", "gemini-0.61.0-tool-errors.jsonl");
    const expected = decodeAll(lines);
    const text = `${lines.join("\n")}\n`;
    const random = seededRandom(3);
    for (let round = 0; round < 20; round++) {
      const splitter = new LineSplitter();
      const decoder = new GeminiDecoder();
      const events: AgentEvent[] = [];
      for (let offset = 0; offset < text.length;) {
        const size = 1 + Math.floor(random() * 300);
        for (const line of splitter.push(text.slice(offset, offset + size))) events.push(...decoder.decode(line));
        offset += size;
      }
      for (const line of splitter.flush()) events.push(...decoder.decode(line));
      expect(events).toEqual(expected);
    }
  });

  it("reports `error` lines as failures", () => {
    expect(new GeminiDecoder().decode('{"type":"error","severity":"error","message":"Loop detected"}')).toEqual([
      { type: "failure", message: "Loop detected" },
    ]);
  });

  it("reports each turn on its own when one decoder reads several turns (nothing carried over)", () => {
    const lines = fixtureLines("streams", "gemini-0.61.0-tool-errors.jsonl");
    const once = decodeAll(lines);
    const decoder = new GeminiDecoder();
    const twice = [...lines, ...lines].flatMap((line) => decoder.decode(line));
    expect(twice.slice(once.length)).toEqual(once);
  });
});
