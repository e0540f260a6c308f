import { readFileSync } from "node:fs";
import { classifyFailure } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { OPENCODE_CLI_VERSION, OPENCODE_FAILURE_RULES, opencodeAgent } from "../src/index.js";
import { decodeChunks } from "@outpost/testkit";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

// Recorded with a scripted model server answering every request with HTTP 429 / 503.
describe("opencode failure rules (recorded from opencode 1.18.33)", () => {
  it("classifies the 429 recording as quota, in the table and in the decoded failure", () => {
    const text = fixture("failures/opencode-1.18.33-http-429.jsonl");
    expect(classifyFailure(OPENCODE_FAILURE_RULES, text)?.rule.id).toBe("opencode-rate-limit");
    const failures = decodeChunks(opencodeAgent().createDecoder(), [text]).filter((event) => event.type === "failure");
    expect(failures).toEqual([{ type: "failure", message: "Rate limit reached for requests", classification: "quota" }]);
  });

  it("classifies the 503 recording as unavailable", () => {
    const text = fixture("failures/opencode-1.18.33-http-503.jsonl");
    expect(classifyFailure(OPENCODE_FAILURE_RULES, text)?.rule.id).toBe("opencode-service-unavailable");
    const failures = decodeChunks(opencodeAgent().createDecoder(), [text]).filter((event) => event.type === "failure");
    expect(failures).toEqual([{ type: "failure", message: "The server is overloaded", classification: "unavailable" }]);
  });

  it("does not classify a successful turn or a tool error", () => {
    for (const name of ["streams/opencode-1.18.33-turn1-tool-call.jsonl", "streams/opencode-1.18.33-tool-error.jsonl"]) {
      expect(classifyFailure(OPENCODE_FAILURE_RULES, fixture(name))).toBeUndefined();
    }
  });

  it("versions every rule with the CLI release it was recorded from, each matching one fixture", () => {
    expect(OPENCODE_CLI_VERSION).toBe("1.18.33");
    for (const rule of OPENCODE_FAILURE_RULES) {
      expect(rule.cliVersion).toBe(OPENCODE_CLI_VERSION);
      const matched = ["http-429", "http-503"].filter((name) => rule.pattern.test(fixture(`failures/opencode-1.18.33-${name}.jsonl`)));
      expect(matched, rule.id).toHaveLength(1);
    }
  });
});
