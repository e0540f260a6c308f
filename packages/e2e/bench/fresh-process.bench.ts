// What a CLI user pays: fresh processes (`outpost run`, a script importing the library once, `outpost --help`)
// against floors measured in the same run, rounds interleaved. Builds are used (dist/): run `npm run build`.
// Run: npx tsx packages/e2e/bench/fresh-process.bench.ts   (BENCH_ROUNDS=8 by default)
import "./private-tmpdir.js";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { scratchRepository, scriptAgent } from "../src/index.js";
import { SHELL_AGENT_LINE } from "./shell-agent.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const here = dirname(fileURLToPath(import.meta.url));
// The installed command, as npm links it: it runs the built CommonJS start (dist/bin.cjs).
const cliBin = resolve(here, "../../cli/bin/outpost.cjs");
if (!existsSync(resolve(here, "../../cli/dist/bin.cjs"))) throw new Error("Build first: npm run build");
const IDENTITY =
  "GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@outpost.invalid GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@outpost.invalid";
const scratch = mkdtempSync(join(tmpdir(), "outpost-fresh-bench-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

// The script agent as a module the built CLI can load, and the shell one-liner agent.
scriptAgent({ directory: scratch });
const scriptModule = join(scratch, "script-agent-module.mjs");
writeFileSync(
  scriptModule,
  [
    `import { scriptAgent } from ${JSON.stringify(resolve(here, "../dist/index.js"))};`,
    `export function createAgent() { return scriptAgent({ directory: ${JSON.stringify(scratch)}, behaviour: { FILE: process.env.SHELL_AGENT_FILE ?? "script.txt" } }); }`,
  ].join("\n"),
);
const shellModule = join(here, "shell-agent.mjs");
const agents = {
  script: { module: scriptModule, floorAgent: `'${process.execPath}' '${join(scratch, "script-agent.mjs")}' brief` },
  shell: { module: shellModule, floorAgent: SHELL_AGENT_LINE },
} as const;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

function mustSucceed(result: ReturnType<typeof spawnSync>, what: string): ReturnType<typeof spawnSync> {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}): ${String(result.stderr)}`);
  return result;
}

/** A careful shell script doing the same work: worktree, agent, merge, cleanup. */
function floor(repository: string, round: number, agentLine: string): void {
  const worktree = join(repository, ".floor", `w${round}`);
  execFileSync("sh", [
    "-c",
    [
      "set -e",
      `cd '${repository}'`,
      `git worktree add --quiet -b floor/${round} '${worktree}' main`,
      `(cd '${worktree}' && export ${IDENTITY} SCRIPT_AGENT_FILE=floor-${round}.txt SHELL_AGENT_FILE=floor-${round}.txt HOME='${scratch}' && ${agentLine} >/dev/null)`,
      `${IDENTITY.split(" ")
        .map((pair) => `export ${pair}`)
        .join("; ")}; git merge --quiet --no-edit floor/${round}`,
      `git worktree remove '${worktree}'`,
      `git branch --quiet -d floor/${round}`,
    ].join("\n"),
  ]);
}

interface Scenario {
  readonly name: string;
  readonly goal: number;
  /** Runs one round in a fresh process; returns that process's report line, if any. */
  run(repository: string, round: number, module: string): string;
}

const scenarios: Scenario[] = [
  {
    name: "outpost run (fresh CLI)",
    goal: 2.5,
    run: (repository, round, module) =>
      String(
        mustSucceed(
          spawnSync(
            process.execPath,
            [
              cliBin,
              "run",
              "--agent-module",
              module,
              "--agent",
              "bench",
              "--provider",
              "local",
              "--branch",
              "integrate",
              "--json",
              "--verbose",
              "brief",
            ],
            {
              cwd: repository,
              encoding: "utf8",
              env: { ...process.env, SHELL_AGENT_FILE: `outpost-${round}.txt` },
            },
          ),
          "outpost run",
        ).stdout,
      ),
  },
  {
    name: "script importing the library",
    goal: 2.5,
    run: (repository, round, module) =>
      String(
        mustSucceed(
          spawnSync(process.execPath, [join(here, "fresh-dispatch.mjs"), repository, module], {
            encoding: "utf8",
            env: { ...process.env, SHELL_AGENT_FILE: `library-${round}.txt` },
          }),
          "fresh dispatch script",
        ).stdout,
      ),
  },
];

/** Phase timings reported by a run (`timing:` diagnostics), from either output shape. */
function phases(output: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const line of output.trim().split("\n")) {
    const value = JSON.parse(line) as { type?: string; message?: string; timings?: Record<string, number> };
    if (value.timings) Object.assign(found, value.timings);
    const match = value.type === "diagnostic" ? /^timing: (\S+) (\d+) ms$/.exec(value.message ?? "") : null;
    if (match) found[match[1]!] = Number(match[2]);
  }
  return found;
}

function peakRss(output: string): number | undefined {
  const line = output
    .trim()
    .split("\n")
    .find((text) => text.includes("maxRssKiB"));
  return line === undefined ? undefined : (JSON.parse(line) as { maxRssKiB: number }).maxRssKiB;
}

for (const [agentName, agent] of Object.entries(agents)) {
  for (const scenario of scenarios) {
    const repository = scratchRepository("outpost-fresh-bench-");
    execFileSync("sh", ["-c", `printf '.floor/\\n' > '${repository}/.git/info/exclude'`]);
    const floors: number[] = [];
    const outposts: number[] = [];
    const phaseSamples = new Map<string, number[]>();
    const rss: number[] = [];
    try {
      floor(repository, 0, agent.floorAgent);
      scenario.run(repository, 0, agent.module);
      for (let round = 1; round <= ROUNDS; round += 1) {
        floors.push(timed(() => floor(repository, round, agent.floorAgent)));
        let output = "";
        outposts.push(
          timed(() => {
            output = scenario.run(repository, round, agent.module);
          }),
        );
        for (const [phase, ms] of Object.entries(phases(output))) phaseSamples.set(phase, [...(phaseSamples.get(phase) ?? []), ms]);
        const peak = peakRss(output);
        if (peak !== undefined) rss.push(peak);
      }
    } finally {
      rmSync(repository, { recursive: true, force: true });
    }
    const ratio = median(outposts) / median(floors);
    const phaseText = [...phaseSamples].map(([phase, values]) => `${phase} ${median(values)}`).join(", ");
    const rssText = rss.length > 0 ? `, peak RSS ${(median(rss) / 1024).toFixed(0)} MB (goal ≤ 60 MB)` : "";
    console.log(
      `${`${scenario.name}, ${agentName} agent`.padEnd(44)} floor ${median(floors).toFixed(0).padStart(4)} ms, ` +
        `outpost ${median(outposts).toFixed(0).padStart(4)} ms, ratio ${ratio.toFixed(2)}× (goal ≤ ${scenario.goal}×)${rssText}`,
    );
    console.log(`${"".padEnd(44)} phase medians (ms): ${phaseText}`);
  }
}

// `outpost --help` against a bare `node -e ""`.
const bare: number[] = [];
const help: number[] = [];
for (let round = 0; round <= ROUNDS; round += 1) {
  const node = timed(() => mustSucceed(spawnSync(process.execPath, ["-e", ""]), "node -e"));
  const outpost = timed(() => mustSucceed(spawnSync(process.execPath, [cliBin, "--help"], { encoding: "utf8" }), "outpost --help"));
  if (round > 0) {
    bare.push(node);
    help.push(outpost);
  }
}
console.log(
  `${"outpost --help".padEnd(44)} node -e "" ${median(bare).toFixed(0).padStart(4)} ms, ` +
    `outpost ${median(help).toFixed(0).padStart(4)} ms, ratio ${(median(help) / median(bare)).toFixed(2)}× (goal ≤ 1.3×)`,
);
