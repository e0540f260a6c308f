import { classifyFailure } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { CODEX_CLI_VERSION, CODEX_FAILURE_RULES, CodexDecoder } from "../src/index.js";
import { fixtureFiles, fixtureLines, fixtureText } from "./fixtures.js";

// Recorded by answering every model call with the status in the file name (see the README).
const EXPECTED: Readonly<Record<string, { classification: string; rule: string }>> = {
  "codex-0.171.0-429-insufficient-quota.stdout.jsonl": { classification: "quota", rule: "codex-quota-exceeded" },
  "codex-0.171.0-429-rate-limit.stdout.jsonl": { classification: "quota", rule: "codex-quota-exceeded" },
  "codex-0.171.0-500.stdout.jsonl": { classification: "unavailable", rule: "codex-service-unavailable" },
  "codex-0.171.0-503.stdout.jsonl": { classification: "unavailable", rule: "codex-service-unavailable" },
};

describe("Codex failure rules", () => {
  it("has a recorded fixture for every rule, and every fixture is expected", () => {
    expect(fixtureFiles("failures", ".stdout.jsonl")).toEqual(Object.keys(EXPECTED).sort());
    expect(new Set(Object.values(EXPECTED).map((entry) => entry.rule))).toEqual(new Set(CODEX_FAILURE_RULES.map((rule) => rule.id)));
  });

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`classifies ${file} as ${expected.classification}, in the output and in the decoded failure`, () => {
      const output = `${fixtureText("failures", file)}\n${fixtureText("failures", file.replace(".stdout.jsonl", ".stderr.txt"))}`;
      expect(classifyFailure(CODEX_FAILURE_RULES, output)?.rule.id).toBe(expected.rule);
      const decoder = new CodexDecoder();
      const failures = fixtureLines("failures", file)
        .flatMap((line) => decoder.decode(line))
        .filter((event) => event.type === "failure");
      expect(failures).toEqual([expect.objectContaining({ classification: expected.classification })]);
    });
  }

  it("versions every rule with the recorded CLI version", () => {
    for (const rule of CODEX_FAILURE_RULES) expect(rule.cliVersion).toBe(CODEX_CLI_VERSION);
  });

  it("does not classify successful turns or a 400", () => {
    for (const file of [
      "codex-0.171.0-write-file.jsonl",
      "codex-0.171.0-tool-failure-and-patch.jsonl",
      "codex-0.171.0-turn-failed-400.jsonl",
    ]) {
      expect(classifyFailure(CODEX_FAILURE_RULES, fixtureText("streams", file))).toBeUndefined();
    }
  });
});
