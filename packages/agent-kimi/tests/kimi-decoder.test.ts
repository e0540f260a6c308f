import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { kimiAgent } from "../src/index.js";
import { decodeChunks, knownEvents } from "@outpost/testkit";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

describe("kimi decoder", () => {
  it("decodes the documented print-mode example (assistant, tool_calls, tool, assistant)", () => {
    const events = decodeChunks(kimiAgent().createDecoder(), [fixture("streams/kimi-documented-print-mode.jsonl")]);
    expect(events).toEqual([
      { type: "text", text: "Hello! How can I help you?" },
      { type: "text", text: "Let me check the current directory." },
      { type: "tool-call", id: "tc_1", name: "Shell", input: { command: "ls" } },
      { type: "tool-result", id: "tc_1", output: "file1.py\nfile2.py" },
      { type: "text", text: "There are two Python files in the current directory." },
    ]);
  });

  it("joins text parts, leaves thinking out of the answer, and keeps a thinking-only message as raw", () => {
    const events = decodeChunks(kimiAgent().createDecoder(), [fixture("streams/kimi-constructed-parts.jsonl")]);
    expect(knownEvents(events)).toEqual([
      { type: "text", text: "I will create the file." },
      { type: "tool-call", id: "WriteFile:0", name: "WriteFile", input: { path: "hello.txt", content: "hi" } },
      { type: "tool-result", id: "WriteFile:0", output: "File successfully overwritten. Current size: 2 bytes." },
      { type: "text", text: "Created hello.txt. MARKER_TURN1_DONE" },
    ]);
    expect(events.filter((event) => event.type === "raw")).toHaveLength(1);
  });

  it("keeps tool arguments that are not JSON as the original string", () => {
    const line = JSON.stringify({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "t", function: { name: "Shell", arguments: "{broken" } }],
    });
    expect(kimiAgent().createDecoder().decode(line)).toEqual([{ type: "tool-call", id: "t", name: "Shell", input: "{broken" }]);
  });

  it("keeps a provider error printed as text, and unknown messages, as raw", () => {
    const decoder = kimiAgent().createDecoder();
    expect(decoder.decode("Error code: 429 - rate limited")).toEqual([{ type: "raw", line: "Error code: 429 - rate limited" }]);
    const notification = '{"id":"n1","category":"task","type":"task.completed","title":"done"}';
    expect(decoder.decode(notification)).toEqual([{ type: "raw", line: notification, value: JSON.parse(notification) }]);
  });
});
