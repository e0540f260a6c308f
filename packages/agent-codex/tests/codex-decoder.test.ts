import { LineSplitter } from "@outpost/core";
import type { AgentEvent } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { CodexDecoder } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";
import { seededRandom } from "@outpost/testkit";

const decodeAll = (lines: readonly string[]): AgentEvent[] => {
  const decoder = new CodexDecoder();
  return lines.flatMap((line) => decoder.decode(line));
};

describe("CodexDecoder on recorded 0.171.0 streams", () => {
  it("turns a tool-call turn into conversation, shell call and result, text, usage, finished", () => {
    const events = decodeAll(fixtureLines("streams", "codex-0.171.0-write-file.jsonl"));
    expect(events.map((event) => event.type)).toEqual(["conversation", "raw", "tool-call", "tool-result", "text", "usage", "finished"]);
    expect(events[0]).toEqual({ type: "conversation", id: "01a23658-19d0-76f1-95c5-035c5d7db102" });
    expect(events[2]).toEqual({
      type: "tool-call",
      id: "item_0",
      name: "shell",
      input: { command: `/bin/bash -lc "printf '%s' 'hi' > 'hello.txt'"` },
    });
    expect(events[3]).toEqual({ type: "tool-result", id: "item_0", output: "" });
    expect(events[4]).toEqual({ type: "text", text: "MARKER_TURN1_DONE" });
    const usage = { inputTokens: 24, outputTokens: 14, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
    expect(events[5]).toEqual({ type: "usage", usage });
    expect(events[6]).toEqual({ type: "finished", text: "MARKER_TURN1_DONE", usage });
  });

  it("marks a failed command as an error result and reports a patch announced only by its items", () => {
    const events = decodeAll(fixtureLines("streams", "codex-0.171.0-tool-failure-and-patch.jsonl"));
    const calls = events.filter((event) => event.type === "tool-call");
    expect(calls.map((event) => (event as { name: string }).name)).toEqual(["shell", "apply_patch"]);
    expect(calls[1]).toMatchObject({ input: { changes: [{ kind: "add", path: expect.stringMatching(/patched\.txt$/) }] } });
    expect(events.filter((event) => event.type === "tool-result")).toEqual([
      { type: "tool-result", id: "item_1", output: "boom\n", isError: true },
      { type: "tool-result", id: "item_2", output: "completed" },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "finished", text: "Both failed, as expected. DONE" });
  });

  it("announces a completed item that never started before its result", () => {
    const decoder = new CodexDecoder();
    const line = '{"type":"item.completed","item":{"id":"item_9","type":"file_change","changes":[],"status":"completed"}}';
    expect(decoder.decode(line).map((event) => event.type)).toEqual(["tool-call", "tool-result"]);
  });

  it("reports a failed turn as a failure and an error finish, keeping the `error` line raw", () => {
    const events = decodeAll(fixtureLines("streams", "codex-0.171.0-turn-failed-400.jsonl"));
    expect(events.filter((event) => event.type === "failure")).toEqual([
      { type: "failure", message: expect.stringContaining("invalid_request_error") },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "finished", isError: true });
    expect(events.filter((event) => event.type === "raw").map((event) => (event as { value?: { type: string } }).value?.type)).toEqual([
      "turn.started",
      "error",
    ]);
  });

  it("decodes the same events whatever the chunk boundaries", () => {
    const lines = fixtureLines("streams", "codex-0.171.0-tool-failure-and-patch.jsonl");
    const expected = decodeAll(lines);
    const text = `${lines.join("\r\n")}\r\n`;
    const random = seededRandom(11);
    for (let round = 0; round < 20; round++) {
      const splitter = new LineSplitter();
      const decoder = new CodexDecoder();
      const events: AgentEvent[] = [];
      for (let offset = 0; offset < text.length;) {
        const size = 1 + Math.floor(random() * 200);
        for (const line of splitter.push(text.slice(offset, offset + size))) events.push(...decoder.decode(line));
        offset += size;
      }
      for (const line of splitter.flush()) events.push(...decoder.decode(line));
      expect(events).toEqual(expected);
    }
  });

  it("names MCP and web-search calls after their tool", () => {
    const decoder = new CodexDecoder();
    const mcp =
      '{"type":"item.started","item":{"id":"m1","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"status":"in_progress"}}';
    expect(decoder.decode(mcp)).toEqual([{ type: "tool-call", id: "m1", name: "docs.search", input: { q: "x" } }]);
    const done =
      '{"type":"item.completed","item":{"id":"m1","type":"mcp_tool_call","server":"docs","tool":"search","error":{"message":"denied"},"status":"failed"}}';
    expect(decoder.decode(done)).toEqual([{ type: "tool-result", id: "m1", output: "denied", isError: true }]);
  });

  it("reports each turn on its own when one decoder reads several turns (nothing carried over)", () => {
    const lines = fixtureLines("streams", "codex-0.171.0-tool-failure-and-patch.jsonl");
    const once = decodeAll(lines);
    const decoder = new CodexDecoder();
    const twice = [...lines, ...lines].flatMap((line) => decoder.decode(line));
    expect(twice.slice(once.length)).toEqual(once);
  });
});
