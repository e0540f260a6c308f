// Replaying a recorded run of COMMITS commits (default 20) against the floor of applying the same patches with
// plain `git am` on the same baseline, in the same run (issue 39; goal ≤ 1.1×). The replay is a whole dispatch:
// it checks every rebuilt commit (tree and id) in a scratch ref before the branch moves by fast-forward.
// Prints medians, the replay's per-stage medians, the load average and the ratio (the median of the rounds'
// ratios). Asserts nothing but that both give the recorded commit ids. It runs the built packages (dist/): build
// them first, as `npm run bench:replay` does.
// Run: npm run bench:replay -w @outpost/e2e   (BENCH_ROUNDS, default 9; BENCH_COMMITS)
import "./private-tmpdir.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapter } from "@outpost/core";
import { createReplayAgent, dispatch, localJournalTransport, readJournal, type Journal } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { gitIn, scratchRepository } from "../src/index.js";

const COMMITS = Number(process.env.BENCH_COMMITS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

// Commits COMMITS times (a new file and a change to a shared one each time), then prints its final event.
function committer(): AgentAdapter {
  const script = [
    "const { execFileSync } = require('node:child_process'); const fs = require('node:fs');",
    `for (let i = 1; i <= ${COMMITS}; i += 1) {`,
    "  fs.writeFileSync('file-' + i + '.txt', 'content ' + i + '\\n'.repeat(i));",
    "  fs.appendFileSync('log.txt', 'step ' + i + '\\n');",
    "  execFileSync('git', ['add', '-A']); execFileSync('git', ['commit', '-q', '-m', 'Step ' + i]);",
    "}",
    "console.log(JSON.stringify({ type: 'finished', text: 'done <outpost>done</outpost>' }));",
  ].join("\n");
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "bench-committer",
    executable: process.execPath,
    requiresFinishedEvent: true,
    usage: "unavailable",
    command: () => ({ executable: process.execPath, arguments: ["-e", script], variables: {} }),
    createDecoder: () => ({ decode: (line) => [JSON.parse(line) as never] }),
  };
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

function clone(source: string): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-bench-replay-clone-"));
  execFileSync("git", ["clone", "--quiet", source, directory]);
  return directory;
}

const repository = scratchRepository("outpost-bench-replay-");
const source = mkdtempSync(join(tmpdir(), "outpost-bench-replay-source-"));
execFileSync("git", ["clone", "--quiet", "--bare", repository, source]);
const recorded = await dispatch({
  agent: committer(),
  brief: "Commit twenty times.",
  repository,
  sandboxProvider: localProvider({ home: "private" }),
  logging: { replayable: true },
});
if (recorded.commits.length !== COMMITS) throw new Error(`the recorded run made ${recorded.commits.length} commits, not ${COMMITS}`);
const journal: Journal = await readJournal({ transport: localJournalTransport(repository), reference: recorded.journal! });
const baseline = gitIn(repository, "rev-parse", `${recorded.commits[0]}^`);
const mailbox = join(mkdtempSync(join(tmpdir(), "outpost-bench-replay-mbox-")), "patches.mbox");
writeFileSync(
  mailbox,
  execFileSync("git", ["-C", repository, "format-patch", "--stdout", "--binary", `${baseline}..${recorded.commits.at(-1)!}`]),
);
const last = recorded.commits.at(-1)!;

// Where a replay's time goes: the dispatch's own per-stage timings (its `timing:` diagnostics), per round.
const stages = new Map<string, number[]>();

async function replay(): Promise<number> {
  const target = clone(source);
  const timings: [string, number][] = [];
  const started = performance.now();
  const result = await dispatch({
    agent: createReplayAgent({ journal }),
    repository: target,
    sandboxProvider: localProvider(),
    logging: false,
    diagnostic: (message) => {
      const timing = /^timing: (\S+) (\d+) ms$/.exec(message);
      if (timing) timings.push([timing[1]!, Number(timing[2])]);
    },
  });
  const ms = performance.now() - started;
  if (result.commits.at(-1) !== last) throw new Error("the replay did not rebuild the recorded commits");
  for (const [stage, stageMs] of timings) stages.set(stage, [...(stages.get(stage) ?? []), stageMs]);
  return ms;
}

function am(): number {
  const target = clone(source);
  const started = performance.now();
  // The recorded committer and date, so that git am gives the same ids (same floor work: apply, write, commit).
  const committer = journal.records.find((record) => record.kind === "commit")!.commit.committer;
  execFileSync("git", ["am", "--quiet", "--keep-cr", "--whitespace=nowarn", "--committer-date-is-author-date", mailbox], {
    cwd: target,
    env: { ...process.env, GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email },
  });
  const ms = performance.now() - started;
  if (gitIn(target, "rev-parse", "HEAD") !== last) throw new Error("git am did not give the recorded commit ids");
  return ms;
}

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
const loadBefore = load();
const replays: number[] = [];
const floors: number[] = [];
await replay(); // warm-up: the first dispatch in a process loads its modules
am();
stages.clear();
for (let round = 0; round < ROUNDS; round += 1) {
  // Alternated, so that a load change on the machine hits both alike.
  if (round % 2 === 0) {
    replays.push(await replay());
    floors.push(am());
  } else {
    floors.push(am());
    replays.push(await replay());
  }
}
const [replayMs, amMs] = [median(replays), median(floors)];
console.log(`${COMMITS} commits, medians of ${ROUNDS} rounds; load average ${loadBefore} before, ${load()} after`);
console.log(`replay (dispatch, verified, then fast-forward): ${replayMs.toFixed(1)} ms`);
console.log(`git am of the same patches:                      ${amMs.toFixed(1)} ms`);
console.log(`  by stage: ${[...stages].map(([stage, values]) => `${stage} ${median(values)}`).join(", ")} (ms, medians)`);
// Each round's replay against the git am run next to it: on a loaded machine the two medians can come from
// rounds that met different loads, the pairs do not.
const paired = median(replays.map((ms, round) => ms / floors[round]!));
console.log(`ratio of the medians: ${(replayMs / amMs).toFixed(2)}×`);
console.log(`ratio: ${paired.toFixed(2)}× (median of the ${ROUNDS} rounds' ratios; goal ≤ 1.1×)`);
