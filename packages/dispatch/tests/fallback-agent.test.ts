import { describe, expect, it } from "vitest";
import { isOutpostError, OutpostError, type AgentAdapter } from "@outpost/core";
import { createFallbackAgent, isFallbackAgent } from "../src/fallback/fallback-agent.js";
import { fallbackClass, runWithFallback } from "../src/fallback/run-with-fallback.js";

// Just enough of an adapter for the chain's bookkeeping; real CLIs run the chain in the e2e suite.
const adapter = (name: string): AgentAdapter =>
  ({ kind: "cli", specificationVersion: "v1", name, executable: name, command: () => ({}), createDecoder: () => ({}) }) as never;

const failed = (classification: string | undefined, usage = { outputTokens: 3 }) =>
  new OutpostError("process", "refused", {
    details: { usage, ...(classification ? { classification, rule: `${classification}-rule` } : {}) },
  });

describe("createFallbackAgent", () => {
  it("names the chain and refuses an empty chain, a nested chain or an unknown class", () => {
    const chain = createFallbackAgent([adapter("claude"), adapter("codex")], { on: ["quota"] });
    expect(isFallbackAgent(chain)).toBe(true);
    expect(chain.name).toBe("claude→codex");
    for (const attempt of [
      () => createFallbackAgent([], { on: ["quota"] }),
      () => createFallbackAgent([chain as never], { on: ["quota"] }),
      () => createFallbackAgent([adapter("a")], { on: [] }),
      () => createFallbackAgent([adapter("a")], { on: ["timeout" as never] }),
    ])
      expect(attempt).toThrow(expect.objectContaining({ code: "configuration" }) as Error);
  });
});

describe("runWithFallback", () => {
  it("moves on for a listed class, reports who was skipped and their usage", async () => {
    const tried: string[] = [];
    const skips: string[] = [];
    const run = await runWithFallback({
      candidates: [adapter("claude"), adapter("codex"), adapter("gemini")],
      on: ["quota", "unavailable"],
      run: (agent) => {
        tried.push(agent.name);
        if (agent.name === "claude") return Promise.reject(failed("quota"));
        if (agent.name === "codex") return Promise.reject(failed("unavailable"));
        return Promise.resolve("answer");
      },
      onFallback: (skip, next) => skips.push(`${skip.agent}->${next.name}:${skip.classification}`),
    });
    expect(tried).toEqual(["claude", "codex", "gemini"]);
    expect(run.outcome).toBe("answer");
    expect(run.report).toEqual({
      agent: "gemini",
      skipped: [
        { agent: "claude", classification: "quota", rule: "quota-rule", message: "refused" },
        { agent: "codex", classification: "unavailable", rule: "unavailable-rule", message: "refused" },
      ],
    });
    expect(skips).toEqual(["claude->codex:quota", "codex->gemini:unavailable"]);
    expect(run.skippedUsage).toEqual({ outputTokens: 6 });
  });

  it("a class not listed, an unclassified failure or an abort fails as before; a candidate never reached never runs", async () => {
    for (const error of [
      failed("unavailable"),
      failed(undefined),
      new OutpostError("aborted", "stop", { details: { classification: "quota" } }),
    ]) {
      const tried: string[] = [];
      const thrown = await runWithFallback({
        candidates: [adapter("claude"), adapter("codex")],
        on: ["quota"],
        run: (agent) => {
          tried.push(agent.name);
          return Promise.reject(error);
        },
      }).catch((caught: unknown) => caught);
      expect(thrown).toBe(error);
      expect(tried).toEqual(["claude"]);
    }
  });

  it("when the last candidate fails too, its error carries the skipped ones", async () => {
    const thrown = await runWithFallback({
      candidates: [adapter("claude"), adapter("codex")],
      on: ["quota"],
      run: () => Promise.reject(failed("quota")),
    }).catch((caught: unknown) => caught);
    if (!isOutpostError(thrown, "process")) throw new Error("expected a process failure");
    expect(thrown.details["fallback"]).toEqual({ skipped: [expect.objectContaining({ agent: "claude" })] });
    expect(thrown.message).toContain("claude (quota)");
    expect(fallbackClass(new Error("plain"), ["quota"])).toBeUndefined();
  });
});
