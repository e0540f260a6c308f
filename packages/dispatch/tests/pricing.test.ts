import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import type { AgentAdapter, AgentEvent } from "@outpost/core";
import { createFallbackAgent, dispatch } from "../src/index.js";
import { loadPricing } from "../src/cost/load-pricing.js";
import { scratchRepository } from "./support/scratch-repository.js";

// The kit's script agent reports 10 input and 5 output tokens per turn: at 100,000 and 200,000 USD per
// million tokens, each turn costs 1 + 1 = 2 USD.
const directory = mkdtempSync(join(tmpdir(), "outpost-pricing-agent-"));
const repository = scratchRepository("outpost-pricing-");
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
  rmSync(repository, { recursive: true, force: true });
});
const models = { "model-a": { input: 100_000, output: 200_000 }, "*": { input: 1, output: 1 } };

describe("pricing", () => {
  it("prices each turn at its model's rates and sums them in the result", async () => {
    const result = await dispatch({
      agent: scriptAgent({ directory, behaviour: { MARKER: "never" } }),
      brief: "x",
      repository,
      model: "model-a",
      passes: 2,
      sandboxProvider: localProvider({ home: "private" }),
      pricing: { models },
    });
    expect(result.turns.map((turn) => turn.costUsd)).toEqual([2, 2]);
    expect(result.costUsd).toBe(4);
    // A model the table does not name takes the "*" entry: 15 tokens at 1 USD per million.
    const other = await dispatch({
      agent: scriptAgent({ directory }),
      brief: "x",
      repository,
      model: "model-b",
      sandboxProvider: localProvider({ home: "private" }),
      pricing: { models },
    });
    expect(other.costUsd).toBe(0.000015);
  }, 60_000);

  it("budgetUsd stops the dispatch with code limit before the turn after the one that reached it", async () => {
    const started: number[] = [];
    const error = await dispatch({
      agent: scriptAgent({ directory, behaviour: { MARKER: "never" } }),
      brief: "x",
      repository,
      model: "model-a",
      passes: 5,
      sandboxProvider: localProvider({ home: "private" }),
      pricing: { models, budgetUsd: 3 },
      observe: ({ pass, event }) => {
        if (event.type === "conversation") started.push(pass);
      },
    }).then(
      () => undefined,
      (caught: unknown) => caught as { code: string; details: Record<string, unknown> },
    );
    expect(error).toMatchObject({ code: "limit", details: { limit: "budgetUsd", budgetUsd: 3, spentUsd: 4, turns: 2 } });
    expect(started).toEqual([1, 2]);
  }, 60_000);

  it("a shared ledger: each turn is charged to it, and a dispatch stops before a turn once the shared budget is spent", async () => {
    let total = 0;
    const ledger = {
      name: "team",
      budgetUsd: 5,
      spent: () => Promise.resolve(total),
      add: (usd: number) => {
        total += usd;
        return Promise.resolve();
      },
    };
    const first = await dispatch({
      agent: scriptAgent({ directory, behaviour: { MARKER: "never" } }),
      brief: "x",
      repository,
      model: "model-a",
      passes: 2,
      sandboxProvider: localProvider({ home: "private" }),
      pricing: { models, ledger },
    });
    expect(first.costUsd).toBe(4);
    expect(total).toBe(4);
    // 4 of 5 spent: the second dispatch runs one turn (2 USD), then the ledger is over and the next turn never starts.
    const error = await dispatch({
      agent: scriptAgent({ directory, behaviour: { MARKER: "never" } }),
      brief: "x",
      repository,
      model: "model-a",
      passes: 3,
      sandboxProvider: localProvider({ home: "private" }),
      pricing: { models, ledger },
    }).then(
      () => undefined,
      (caught: unknown) => caught as { code: string; details: Record<string, unknown> },
    );
    expect(error).toMatchObject({ code: "limit", details: { limit: "ledger", ledger: "team", budgetUsd: 5, spentUsd: 6, turns: 1 } });
    expect(total).toBe(6);
  }, 60_000);

  it("a fallback: what the skipped candidate consumed is priced into the answering turn", async () => {
    // A real process that reports 10 input and 5 output tokens, then fails with a rate limit (classified quota).
    const program =
      'process.stdout.write(JSON.stringify({ type: "usage", usage: { inputTokens: 10, outputTokens: 5 } }) + "\\n");' +
      'process.stdout.write(JSON.stringify({ type: "failure", message: "rate limit reached" }) + "\\n"); process.exit(1);';
    const limited: AgentAdapter = {
      kind: "cli",
      specificationVersion: "v1",
      name: "limited",
      executable: process.execPath,
      failureRules: [{ id: "rate-limit", classification: "quota", pattern: /rate limit/, cliVersion: "1.0.0" }],
      command: () => ({ executable: process.execPath, arguments: ["-e", program], variables: {} }),
      createDecoder: () => ({ decode: (line) => [JSON.parse(line) as AgentEvent] }),
    };
    const result = await dispatch({
      agent: createFallbackAgent([limited, scriptAgent({ directory })], { on: ["quota"] }),
      brief: "x",
      repository,
      model: "model-a",
      sandboxProvider: localProvider({ home: "private" }),
      pricing: { models },
    });
    expect(result.fallback?.agent).toBe("script-agent");
    expect(result.usage).toMatchObject({ inputTokens: 20, outputTokens: 10 });
    expect(result.turns[0]?.costUsd).toBe(4);
    expect(result.costUsd).toBe(4);
  }, 60_000);

  it("refuses a malformed table (code configuration), and loads a pinned file", async () => {
    for (const pricing of [
      { models: {} },
      { models: { a: { input: 1 } } },
      { models: { a: { input: 1, output: -1 } } },
      { models, budgetUsd: 0 },
    ])
      await expect(
        dispatch({
          agent: scriptAgent({ directory }),
          brief: "x",
          repository,
          sandboxProvider: localProvider(),
          pricing: pricing as never,
        }),
      ).rejects.toMatchObject({ code: "configuration" });
    const file = join(directory, "prices.json");
    writeFileSync(file, JSON.stringify({ models, budgetUsd: 10 }));
    expect(await loadPricing(file)).toEqual({ models, budgetUsd: 10 });
    writeFileSync(file, JSON.stringify({ models: { a: { input: "3" } } }));
    await expect(loadPricing(file)).rejects.toMatchObject({ code: "configuration" });
  }, 30_000);
});
