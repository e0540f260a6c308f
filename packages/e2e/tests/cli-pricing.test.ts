import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { scratchRepository } from "../src/index.js";

// `outpost run --pricing <file> --json` from the CLI's sources, with the script agent (10 input and 5 output
// tokens per turn): at 100,000 and 200,000 USD per million tokens a turn costs 2 USD.
const packages = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = join(packages, "cli/src/bin.ts");
const tsxLoader = pathToFileURL(join(packages, "../node_modules/tsx/dist/loader.mjs")).href;
const scratch = mkdtempSync(join(tmpdir(), "outpost-cli-pricing-"));

function outpost(args: readonly string[], cwd: string) {
  return spawnSync(process.execPath, ["--conditions=outpost-source", "--import", tsxLoader, bin, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
  });
}

function agentModule(behaviour: Record<string, string>): string {
  const module = join(scratch, `agent-${Object.keys(behaviour).length}.mjs`);
  writeFileSync(
    module,
    [
      `import { scriptAgent } from ${JSON.stringify(join(packages, "e2e/src/index.ts"))};`,
      `export function createAgent() { return scriptAgent({ directory: ${JSON.stringify(scratch)}, behaviour: ${JSON.stringify(behaviour)} }); }`,
    ].join("\n"),
  );
  return module;
}

function pricingFile(budgetUsd?: number): string {
  const file = join(scratch, `prices-${budgetUsd ?? "none"}.json`);
  writeFileSync(file, JSON.stringify({ models: { "*": { input: 100_000, output: 200_000 } }, ...(budgetUsd ? { budgetUsd } : {}) }));
  return file;
}

const lastLine = (stdout: string) => JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, unknown>;

describe("outpost run --pricing", () => {
  it("--json reports the run's cost and each turn's", () => {
    const repository = scratchRepository();
    const run = outpost(
      [
        "run",
        "--agent-module",
        agentModule({ MARKER: "never" }),
        "--provider",
        "local",
        "--passes",
        "2",
        "--pricing",
        pricingFile(),
        "--json",
        "x",
      ],
      repository,
    );
    expect(lastLine(run.stdout)).toMatchObject({ type: "result", costUsd: 4, turnCostsUsd: [2, 2] });
  });

  it("the budget stops the run before the next turn: a JSON error with code limit", () => {
    const repository = scratchRepository();
    const run = outpost(
      [
        "run",
        "--agent-module",
        agentModule({ MARKER: "never" }),
        "--provider",
        "local",
        "--passes",
        "3",
        "--pricing",
        pricingFile(1),
        "--json",
        "x",
      ],
      repository,
    );
    expect(run.status).toBe(1);
    expect(lastLine(run.stdout)).toMatchObject({ type: "error", code: "limit", details: { budgetUsd: 1, spentUsd: 2, turns: 1 } });
  });
});
