import { readFileSync } from "node:fs";
import { classifyFailure } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { COPILOT_CLI_VERSION, COPILOT_FAILURE_RULES, copilotAgent } from "../src/index.js";
import { decodeChunks } from "@outpost/testkit";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

// Recorded with a scripted model server answering every request with HTTP 429 / 503.
describe("copilot failure rules (recorded from Copilot CLI 1.0.102)", () => {
  it("classifies the 429 recording as quota, in the rule table and in the decoded failure", () => {
    const text = fixture("failures/copilot-1.0.102-http-429.jsonl");
    expect(classifyFailure(COPILOT_FAILURE_RULES, text)?.rule.id).toBe("copilot-rate-limit");
    const failures = decodeChunks(copilotAgent().createDecoder(), [text]).filter((event) => event.type === "failure");
    expect(failures).toEqual([
      {
        type: "failure",
        classification: "quota",
        message:
          "Failed to get response from the AI model; retried 5 times (total retry wait time: 5.00 seconds) Last error: 429 Rate limit reached for requests",
      },
    ]);
  });

  it("classifies the 503 recording as unavailable", () => {
    const text = fixture("failures/copilot-1.0.102-http-503.jsonl");
    expect(classifyFailure(COPILOT_FAILURE_RULES, text)?.classification).toBe("unavailable");
    const failures = decodeChunks(copilotAgent().createDecoder(), [text]).filter((event) => event.type === "failure");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ classification: "unavailable" });
  });

  it("does not classify a successful turn", () => {
    expect(classifyFailure(COPILOT_FAILURE_RULES, fixture("streams/copilot-1.0.102-turn1-tool-call.jsonl"))).toBeUndefined();
  });

  it("versions every rule with the CLI release it was recorded from, each with a fixture", () => {
    expect(COPILOT_FAILURE_RULES.map((rule) => rule.cliVersion)).toEqual([COPILOT_CLI_VERSION, COPILOT_CLI_VERSION]);
    expect(COPILOT_CLI_VERSION).toBe("1.0.102");
    for (const rule of COPILOT_FAILURE_RULES) {
      const matched = ["http-429", "http-503"].filter((name) => rule.pattern.test(fixture(`failures/copilot-1.0.102-${name}.jsonl`)));
      expect(matched, rule.id).toHaveLength(1);
    }
  });
});
