import { describe, expect, it } from "vitest";
import { codexAgent, codexTranscriptUsage } from "../src/index.js";
import { fixtureText } from "./fixtures.js";

const SINGLE = "codex/home/.codex/sessions/2026/12/02/rollout-2026-12-02T10-52-51-01a23662-c293-73d2-8ce8-928ce6fb5c1b.jsonl";

describe("codexTranscriptUsage", () => {
  it("is the whole total for a rollout of one turn", () => {
    expect(codexTranscriptUsage(fixtureText("sessions", SINGLE))).toEqual({
      inputTokens: 24,
      outputTokens: 14,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
  });

  it("is the continued turn's own usage, not the thread's running total (recorded: 0.147.0 and 0.171.0)", () => {
    // Turn 2 of these rollouts sent 12 input tokens and got 7 back; its turn.completed said 36 and 21.
    for (const version of ["0.147.0", "0.171.0"]) {
      expect(codexTranscriptUsage(fixtureText("rollouts", `codex-${version}-two-turns.jsonl`)), version).toEqual({
        inputTokens: 12,
        outputTokens: 7,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      });
    }
  });

  it("is what the agent reports as a captured turn's usage", () => {
    const text = fixtureText("sessions", SINGLE);
    expect(codexAgent().transcriptUsage?.(text)).toEqual(codexTranscriptUsage(text));
    expect(codexAgent().transcriptUsage?.("")).toBeUndefined();
  });

  it("is undefined when the rollout records no totals", () => {
    expect(codexTranscriptUsage("")).toBeUndefined();
    expect(codexTranscriptUsage('{"type":"event_msg","payload":{"type":"task_started"}}')).toBeUndefined();
  });
});
