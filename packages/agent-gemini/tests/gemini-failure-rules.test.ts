import { classifyFailure } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { GEMINI_CLI_VERSION, GEMINI_FAILURE_RULES } from "../src/index.js";
import { fixtureFiles, fixtureText } from "./fixtures.js";

// Recorded with `general.maxAttempts: 1`, answering every model call with the status in the file name.
const EXPECTED: Readonly<Record<string, { classification: string; rule: string }>> = {
  "gemini-0.61.0-429.stdout.jsonl": { classification: "quota", rule: "gemini-quota-429" },
  "gemini-0.61.0-503.stdout.jsonl": { classification: "unavailable", rule: "gemini-unavailable-5xx" },
};

describe("Gemini failure rules", () => {
  it("has a recorded fixture for every rule, and every fixture is expected", () => {
    expect(fixtureFiles("failures", ".stdout.jsonl")).toEqual(Object.keys(EXPECTED).sort());
    expect(new Set(Object.values(EXPECTED).map((entry) => entry.rule))).toEqual(new Set(GEMINI_FAILURE_RULES.map((rule) => rule.id)));
  });

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`classifies the output of ${file} as ${expected.classification}`, () => {
      const output = `${fixtureText("failures", file)}\n${fixtureText("failures", file.replace(".stdout.jsonl", ".stderr.txt"))}`;
      const match = classifyFailure(GEMINI_FAILURE_RULES, output);
      expect(match?.rule.id).toBe(expected.rule);
    });
  }

  it("versions every rule with the recorded CLI version", () => {
    for (const rule of GEMINI_FAILURE_RULES) expect(rule.cliVersion).toBe(GEMINI_CLI_VERSION);
  });

  it("does not classify successful turns or tool errors", () => {
    for (const file of ["gemini-0.61.0-write-file.jsonl", "gemini-0.61.0-tool-errors.jsonl"]) {
      expect(classifyFailure(GEMINI_FAILURE_RULES, fixtureText("streams", file))).toBeUndefined();
    }
  });
});
