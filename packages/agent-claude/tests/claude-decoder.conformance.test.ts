import { describeAgentDecoder } from "@outpost/testkit";
import { describe, expect, it } from "vitest";
import { ClaudeDecoder } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";

const MALFORMED = [
  '{"type":"system","subtype":"init","session_id":5}',
  '{"type":"assistant","message":5}',
  '{"type":"assistant","message":{"content":[null,1,"x",{"type":"tool_use"}]}}',
  '{"type":"user","message":{"content":[{"type":"tool_result","content":[null,{"text":3}]}]}}',
  '{"type":"result","usage":"lots","is_error":"yes","result":7}',
];

describeAgentDecoder({
  name: "claude",
  createDecoder: () => new ClaudeDecoder(),
  // Every tested release: the pinned one and the oldest of the version matrix (e2e cli-matrix/versions.txt).
  recorded: [
    "claude-2.1.332-write-file.jsonl",
    "claude-2.1.332-tool-errors.jsonl",
    "claude-2.1.197-turn1-tool-call.jsonl",
    "claude-2.1.197-turn2-resume.jsonl",
  ].flatMap((file) => fixtureLines("streams", file)),
  malformed: MALFORMED,
});

describe("ClaudeDecoder on malformed known types", () => {
  it("keeps an assistant line without a message object as raw, with its value", () => {
    expect(new ClaudeDecoder().decode('{"type":"assistant","message":5}')).toEqual([
      { type: "raw", line: '{"type":"assistant","message":5}', value: { type: "assistant", message: 5 } },
    ]);
  });
});
