import { classifyFailure } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { CLAUDE_CLI_VERSION, CLAUDE_FAILURE_RULES } from "../src/index.js";
import { fixtureFiles, fixtureText } from "./fixtures.js";

// Recorded by answering every model call with the status in the file name (see the README).
const EXPECTED: Readonly<Record<string, { classification: string; rule: string }>> = {
  "claude-2.1.332-429.stdout.jsonl": { classification: "quota", rule: "claude-rate-limit-429" },
  "claude-2.1.332-529.stdout.jsonl": { classification: "unavailable", rule: "claude-overloaded-or-5xx" },
  "claude-2.1.332-503.stdout.jsonl": { classification: "unavailable", rule: "claude-overloaded-or-5xx" },
};

describe("Claude failure rules", () => {
  it("has a recorded fixture for every rule, and every fixture is expected", () => {
    expect(fixtureFiles("failures", ".stdout.jsonl")).toEqual(Object.keys(EXPECTED).sort());
    expect(new Set(Object.values(EXPECTED).map((entry) => entry.rule))).toEqual(new Set(CLAUDE_FAILURE_RULES.map((rule) => rule.id)));
  });

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`classifies ${file} as ${expected.classification}`, () => {
      const output = `${fixtureText("failures", file)}\n${fixtureText("failures", file.replace(".stdout.jsonl", ".stderr.txt"))}`;
      const match = classifyFailure(CLAUDE_FAILURE_RULES, output);
      expect(match?.classification).toBe(expected.classification);
      expect(match?.rule.id).toBe(expected.rule);
    });
  }

  it("versions every rule with the recorded CLI version", () => {
    for (const rule of CLAUDE_FAILURE_RULES) expect(rule.cliVersion).toBe(CLAUDE_CLI_VERSION);
  });

  it("does not classify successful turns or tool errors", () => {
    for (const file of ["claude-2.1.332-write-file.jsonl", "claude-2.1.332-tool-errors.jsonl"]) {
      expect(classifyFailure(CLAUDE_FAILURE_RULES, fixtureText("streams", file))).toBeUndefined();
    }
  });
});
