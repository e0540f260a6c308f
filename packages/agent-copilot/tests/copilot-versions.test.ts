import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isOutpostError } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { COPILOT_TELEMETRY_FLAG_SINCE, copilotAgent, copilotTranscriptUsage } from "../src/index.js";

const turn = { prompt: "x", root: "/work/repo", home: "/home/agent" };
const fixture = (...parts: string[]) => readFileSync(join(import.meta.dirname, "fixtures", ...parts), "utf8");

describe("copilotAgent across CLI versions", () => {
  it("passes the telemetry flag only to releases that know it", () => {
    expect(COPILOT_TELEMETRY_FLAG_SINCE).toBe("1.0.102");
    expect(copilotAgent({ version: "1.0.92" }).command(turn).arguments).not.toContain("--disable-client-telemetry");
    expect(copilotAgent({ version: "1.0.102" }).command(turn).arguments).toContain("--disable-client-telemetry");
  });

  it("refuses fork with `configuration` at every release, naming the release", () => {
    const agent = copilotAgent({ version: "1.0.92" });
    expect(agent.forkable).toBe(false);
    expect(agent.unsupported?.("fork")).toContain("1.0.92");
    let error: unknown;
    try {
      agent.command({ ...turn, resume: { id: "0cb916db-26aa-40f2-86b5-1ba81b225fd2", fork: true } });
    } catch (caught) {
      error = caught;
    }
    expect(isOutpostError(error, "configuration")).toBe(true);
  });

  it("reads 1.0.92's usage from its shutdown totals: the continued run's own, not the session's running total", () => {
    // Recorded from 1.0.92: two model calls in turn 1 (24/14), one in the resumed turn 2 (its shutdown says 36/21).
    const events = fixture("transcripts", "copilot-1.0.92-two-turns.events.jsonl");
    expect(copilotTranscriptUsage(events, "shutdown-totals")).toEqual({
      inputTokens: 12,
      outputTokens: 7,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(copilotAgent({ version: "1.0.92" }).transcriptUsage?.(events)).toEqual({
      inputTokens: 12,
      outputTokens: 7,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    const firstRun = events
      .split("\n")
      .filter((line) => line !== "")
      .slice(
        0,
        events.split("\n").findIndex((line) => line.includes('"session.resume"')),
      );
    expect(copilotTranscriptUsage(firstRun.join("\n"))).toEqual({
      inputTokens: 24,
      outputTokens: 14,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });

  it("warns with the tested range for a release outside it", () => {
    const messages = copilotAgent({ version: "1.0.50" }).cliWarnings?.({}) ?? [];
    expect(messages).toEqual([expect.stringMatching(/copilot 1\.0\.50 is outside the tested range 1\.0\.92–1\.0\.102/)]);
  });

  it("knows every event kind 1.0.92 and 1.0.102 print: no diagnostic, and unknown kinds are reported once per turn", () => {
    const messages: string[] = [];
    const decoder = copilotAgent({ version: "1.0.102" }).createDecoder({ turn, diagnostic: (message) => messages.push(message) });
    for (const file of [
      "copilot-1.0.92-turn1-tool-call.jsonl",
      "copilot-1.0.92-turn2-resume.jsonl",
      "copilot-1.0.102-turn1-tool-call.jsonl",
      "copilot-1.0.102-turn2-resume.jsonl",
    ]) {
      for (const line of fixture("streams", file).split("\n")) if (line !== "") decoder.decode(line);
    }
    for (const line of fixture("failures", "copilot-1.0.102-http-429.jsonl").split("\n")) if (line !== "") decoder.decode(line);
    expect(messages).toEqual([]);
    const line = '{"type":"session.brand_new","data":{}}';
    expect(decoder.decode(line)).toEqual([expect.objectContaining({ type: "raw", line })]);
    decoder.decode(line);
    expect(messages).toEqual([expect.stringContaining('"session.brand_new"')]);
  });
});
