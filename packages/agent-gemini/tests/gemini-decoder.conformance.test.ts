import { describeAgentDecoder } from "@outpost/testkit";
import { describe, expect, it } from "vitest";
import { GeminiDecoder } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";

const MALFORMED = [
  '{"type":"init"}',
  '{"type":"message","role":"assistant","content":{"text":"x"}}',
  '{"type":"tool_use","tool_name":["x"],"parameters":null}',
  '{"type":"tool_result","status":5,"error":"x"}',
  '{"type":"result","status":null,"stats":"none","error":[]}',
  '{"type":"error"}',
];

describeAgentDecoder({
  name: "gemini",
  createDecoder: () => new GeminiDecoder(),
  // Every tested release: the pinned one and the oldest of the version matrix (e2e cli-matrix/versions.txt).
  recorded: [
    "gemini-0.61.0-write-file.jsonl",
    "gemini-0.61.0-tool-errors.jsonl",
    "gemini-0.55.1-turn1-tool-call.jsonl",
    "gemini-0.55.1-turn2-resume.jsonl",
  ].flatMap((file) => fixtureLines("streams", file)),
  malformed: MALFORMED,
});

describe("GeminiDecoder on malformed known types", () => {
  it("keeps an assistant message whose content is not text as raw, with its value", () => {
    const line = '{"type":"message","role":"assistant","content":{"text":"x"}}';
    expect(new GeminiDecoder().decode(line)).toEqual([{ type: "raw", line, value: JSON.parse(line) }]);
  });
});
