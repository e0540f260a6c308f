import { describeAgentDecoder } from "@outpost/testkit";
import { describe, expect, it } from "vitest";
import { CodexDecoder } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";

const MALFORMED = [
  '{"type":"thread.started","thread_id":null}',
  '{"type":"item.started","item":"x"}',
  '{"type":"item.completed","item":{"type":"command_execution","id":7,"exit_code":"3"}}',
  '{"type":"item.completed","item":{"type":"mcp_tool_call","server":1,"result":{"a":[1]}}}',
  '{"type":"turn.completed","usage":[1,2]}',
  '{"type":"turn.failed","error":"boom"}',
];

describeAgentDecoder({
  name: "codex",
  createDecoder: () => new CodexDecoder(),
  // Every tested release: the pinned one and the oldest of the version matrix (cli-matrix/versions.txt).
  recorded: [
    "codex-0.171.0-write-file.jsonl",
    "codex-0.171.0-turn2-resume.jsonl",
    "codex-0.171.0-tool-failure-and-patch.jsonl",
    "codex-0.171.0-turn-failed-400.jsonl",
    "codex-0.147.0-write-file.jsonl",
    "codex-0.147.0-turn2-resume.jsonl",
  ].flatMap((file) => fixtureLines("streams", file)),
  malformed: MALFORMED,
});

describe("CodexDecoder on malformed known types", () => {
  it("still reports a failed turn whose error is a bare string", () => {
    expect(new CodexDecoder().decode('{"type":"turn.failed","error":"boom"}')).toEqual([
      { type: "failure", message: "turn failed" },
      { type: "finished", text: "turn failed", isError: true },
    ]);
  });
});
