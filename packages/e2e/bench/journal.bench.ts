// Journal overhead and replay speed (issue 17): a dispatch whose agent commits once and emits BENCH_EVENTS
// events (default 10,000), with the default journal (replayable) against `logging: false`; then the replay
// of that journal in a clone of the same baseline against the recorded run. Prints medians and the ratios
// (targets: overhead ≤ 1.1×, replay ≥ 20× faster). Asserts nothing.
// Run: npx tsx --conditions=outpost-source packages/e2e/bench/journal.bench.ts   (or npm run bench:journal -w @outpost/e2e)
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapter } from "@outpost/core";
import { createReplayAgent, dispatch, localJournalTransport, readJournal, type Logging } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { scratchRepository } from "../src/index.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BRIEF = "emit events";

// Commits one file, then prints EVENTS text events and a finished event, as fast as node writes them.
const EMITTER = [
  "const { execSync } = require('node:child_process');",
  "require('node:fs').writeFileSync('bench.txt', 'bench\\n');",
  "execSync('git add bench.txt && git commit -q -m bench');",
  `const lines = []; for (let i = 0; i < ${EVENTS}; i += 1) lines.push(JSON.stringify({ type: 'text', text: 'event ' + i }));`,
  "lines.push(JSON.stringify({ type: 'text', text: '<outpost>done</outpost>' }), JSON.stringify({ type: 'finished' }));",
  "process.stdout.write(lines.join('\\n') + '\\n');",
].join(" ");

const emitter: AgentAdapter = {
  kind: "cli",
  specificationVersion: "v1",
  name: "bench-emitter",
  executable: process.execPath,
  requiresFinishedEvent: true,
  usage: "unavailable",
  resumable: false,
  forkable: false,
  command: () => ({ executable: process.execPath, arguments: ["-e", EMITTER], variables: {} }),
  createDecoder: () => ({ decode: (line) => [JSON.parse(line) as never] }),
};

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** A scratch repository and a bare copy of its baseline, for the replay. */
function site(): { repository: string; source: string } {
  const repository = scratchRepository("outpost-bench-journal-");
  const source = mkdtempSync(join(tmpdir(), "outpost-bench-journal-source-"));
  execFileSync("git", ["clone", "--quiet", "--bare", repository, source]);
  return { repository, source };
}

async function record(logging: Logging) {
  const { repository, source } = site();
  const started = performance.now();
  const result = await dispatch({ agent: emitter, brief: BRIEF, repository, sandboxProvider: localProvider({ home: "private" }), logging });
  return { ms: performance.now() - started, result, repository, source };
}

const plain: number[] = [];
const journaled: number[] = [];
const replays: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  plain.push((await record(false)).ms);
  const recorded = await record({ replayable: true });
  journaled.push(recorded.ms);
  const journal = await readJournal({ transport: localJournalTransport(recorded.repository), reference: recorded.result.journal! });
  const clone = mkdtempSync(join(tmpdir(), "outpost-bench-journal-clone-"));
  execFileSync("git", ["clone", "--quiet", recorded.source, clone]);
  const started = performance.now();
  const replayed = await dispatch({
    agent: createReplayAgent({ journal }),
    brief: BRIEF,
    repository: clone,
    sandboxProvider: localProvider({ home: "private" }),
    logging: false,
  });
  replays.push(performance.now() - started);
  if (replayed.commits.join() !== recorded.result.commits.join()) throw new Error("the replay did not rebuild the recorded commits");
}

const [off, on, replay] = [median(plain), median(journaled), median(replays)];
console.log(`events per dispatch: ${EVENTS}; rounds: ${ROUNDS} (medians)`);
console.log(`logging: false          ${off.toFixed(0)} ms`);
console.log(`journal (replayable)    ${on.toFixed(0)} ms   overhead ${(on / off).toFixed(2)}× (target ≤ 1.10×)`);
console.log(`replay of that journal  ${replay.toFixed(0)} ms   ${(on / replay).toFixed(1)}× faster than the recorded run (target ≥ 20×)`);
