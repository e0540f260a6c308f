import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { gitIn, scratchRepository } from "../src/index.js";

// `outpost run` with --pricing, the guard flags and --watchdog, from the CLI's sources. The script agent reports 10
// input and 5 output tokens per turn: at 100,000 and 200,000 USD per million tokens a turn costs 2 USD.
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

/** A module whose agent calls the same tool with the same arguments every 30 ms, forever. */
function loopingModule(): string {
  const module = join(scratch, "looping.mjs");
  const program = [
    'const print = (value) => process.stdout.write(JSON.stringify(value) + "\\n");',
    'print({ type: "conversation", id: "loop" });',
    'setInterval(() => print({ type: "tool-call", name: "read", input: { path: "a.txt" } }), 30);',
  ].join("\n");
  writeFileSync(
    module,
    `export function createAgent() {
  return {
    kind: "cli", specificationVersion: "v1", name: "looping", executable: process.execPath,
    command: () => ({ executable: process.execPath, arguments: ["-e", ${JSON.stringify(program)}], variables: {} }),
    createDecoder: () => ({ decode: (line) => [JSON.parse(line)] }),
  };
}`,
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

describe("outpost run guard and watchdog flags", () => {
  it("--protect: a protected file changed fails with code guard, main does not move", () => {
    const repository = scratchRepository();
    const before = gitIn(repository, "rev-parse", "main");
    const module = agentModule({ SHELL: "mkdir -p ci && echo x > ci/deploy.yml && git add ci && git commit -qm ci", FILE: "ok.txt" });
    const run = outpost(
      ["run", "--agent-module", module, "--provider", "local", "--branch", "integrate", "--protect", "ci", "--json", "x"],
      repository,
    );
    expect(run.status).toBe(1);
    expect(lastLine(run.stdout)).toMatchObject({ type: "error", code: "guard", details: { guard: { protectedPaths: ["ci/deploy.yml"] } } });
    expect(gitIn(repository, "rev-parse", "main")).toBe(before);
  });

  it("--max-changed-lines: a bigger change fails with code guard", () => {
    const repository = scratchRepository();
    const module = agentModule({ SHELL: "seq 1 20 > n.txt && git add n.txt && git commit -qm n", MARKER: "always" });
    const run = outpost(["run", "--agent-module", module, "--provider", "local", "--max-changed-lines", "10", "--json", "x"], repository);
    expect(lastLine(run.stdout)).toMatchObject({ type: "error", code: "guard", details: { guard: { changedLines: 20 } } });
  });

  it("--watchdog: a looping agent is stopped with code stuck, the watchdog event in the --json stream", () => {
    const repository = scratchRepository();
    const run = outpost(["run", "--agent-module", loopingModule(), "--provider", "local", "--watchdog", "3", "--json", "x"], repository);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; event?: { type: string } });
    expect(lines.some((line) => line.type === "event" && line.event?.type === "watchdog")).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: "error", code: "stuck" });
  });
});
