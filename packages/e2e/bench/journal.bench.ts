// Journal overhead and replay speed (issue 17).
// 1. Overhead: a dispatch whose agent commits once and prints BENCH_EVENTS events (default 10,000) as fast
//    as node writes them (the worst case for the journal), with the default journal (compact) and with a
//    replayable one (which also records and verifies the commit) against `logging: false`. Wall time and CPU time (this process and the processes it started) are compared.
// 2. Replay: a realistic recorded run (the same events paced over BENCH_TURN_SECONDS, default 10 s, as an
//    agent's turn takes time) is replayed in a clone of the same baseline, with the recorded timing compressed.
// Prints medians and the ratios (targets: overhead ≤ 1.1×, replay ≥ 20× faster). Asserts nothing.
// Run: npm run bench:journal -w @outpost/e2e   (BENCH_ROUNDS, default 3; BENCH_EVENTS; BENCH_TURN_SECONDS)
import "./private-tmpdir.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapter } from "@outpost/core";
import { createReplayAgent, dispatch, localJournalTransport, readJournal, type Logging } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { scratchRepository } from "../src/index.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TURN_MS = Number(process.env.BENCH_TURN_SECONDS ?? 10) * 1000;
const BURSTS = 100;
const BRIEF = "emit events";

// Commits one file, then prints EVENTS text events and a finished event: at once, or in BURSTS bursts over TURN_MS.
function emitterScript(paced: boolean): string {
  return [
    "const { execSync } = require('node:child_process');",
    "require('node:fs').writeFileSync('bench.txt', 'bench\\n');",
    "execSync('git add bench.txt && git commit -q -m bench');",
    `const lines = []; for (let i = 0; i < ${EVENTS}; i += 1) lines.push(JSON.stringify({ type: 'text', text: 'event ' + i }));`,
    "const end = [JSON.stringify({ type: 'text', text: '<outpost>done</outpost>' }), JSON.stringify({ type: 'finished' })];",
    paced
      ? `const size = Math.ceil(lines.length / ${BURSTS}); let sent = 0; const timer = setInterval(() => { const burst = lines.slice(sent, sent + size); sent += size; ` +
        `process.stdout.write(burst.join('\\n') + '\\n'); if (sent >= lines.length) { clearInterval(timer); process.stdout.write(end.join('\\n') + '\\n'); } }, ${TURN_MS / BURSTS});`
      : "process.stdout.write([...lines, ...end].join('\\n') + '\\n');",
  ].join(" ");
}

function emitter(paced: boolean): AgentAdapter {
  const script = emitterScript(paced);
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "bench-emitter",
    executable: process.execPath,
    requiresFinishedEvent: true,
    usage: "unavailable",
    resumable: false,
    forkable: false,
    command: () => ({ executable: process.execPath, arguments: ["-e", script], variables: {} }),
    createDecoder: () => ({ decode: (line) => [JSON.parse(line) as never] }),
  };
}

/** CPU milliseconds of this process and of the finished processes it started (Linux clock ticks of 10 ms). */
function cpuMs(): number {
  const own = process.cpuUsage();
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (own.user + own.system) / 1000 + (Number(fields[13]) + Number(fields[14])) * 10;
}

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

async function measured<T>(work: () => Promise<T>): Promise<{ ms: number; cpu: number; value: T }> {
  const [startedCpu, started] = [cpuMs(), performance.now()];
  const value = await work();
  return { ms: performance.now() - started, cpu: cpuMs() - startedCpu, value };
}

async function record(logging: Logging, paced: boolean) {
  const { repository, source } = site();
  const run = await measured(() =>
    dispatch({ agent: emitter(paced), brief: BRIEF, repository, sandboxProvider: localProvider({ home: "private" }), logging }),
  );
  return { ...run, repository, source };
}

async function replay(recorded: Awaited<ReturnType<typeof record>>) {
  const journal = await readJournal({ transport: localJournalTransport(recorded.repository), reference: recorded.value.journal! });
  const clone = mkdtempSync(join(tmpdir(), "outpost-bench-journal-clone-"));
  execFileSync("git", ["clone", "--quiet", recorded.source, clone]);
  const run = await measured(() =>
    dispatch({
      agent: createReplayAgent({ journal }),
      brief: BRIEF,
      repository: clone,
      sandboxProvider: localProvider({ home: "private" }),
      logging: false,
    }),
  );
  if (run.value.commits.join() !== recorded.value.commits.join()) throw new Error("the replay did not rebuild the recorded commits");
  return run;
}

const plain = { ms: [] as number[], cpu: [] as number[] };
const journaled = { ms: [] as number[], cpu: [] as number[] };
const compact = { ms: [] as number[], cpu: [] as number[] };
const paced = { ms: [] as number[], cpu: [] as number[] };
const replays = { ms: [] as number[], cpu: [] as number[] };
const keep = (into: { ms: number[]; cpu: number[] }, run: { ms: number; cpu: number }) => {
  into.ms.push(run.ms);
  into.cpu.push(run.cpu);
};
for (let round = 0; round < ROUNDS; round += 1) {
  keep(plain, await record(false, false));
  keep(journaled, await record({ replayable: true }, false));
  keep(compact, await record({}, false));
}
for (let round = 0; round < Math.max(1, Math.min(ROUNDS, 2)); round += 1) {
  const recorded = await record({ replayable: true }, true);
  keep(paced, recorded);
  keep(replays, await replay(recorded));
}

const row = (name: string, into: { ms: number[]; cpu: number[] }) =>
  `${name.padEnd(34)} ${median(into.ms).toFixed(0).padStart(6)} ms wall ${median(into.cpu).toFixed(0).padStart(6)} ms CPU`;
console.log(`events per dispatch: ${EVENTS}; medians of ${ROUNDS} round(s), ${paced.ms.length} for the paced run and its replay`);
console.log(row("logging: false, events at once", plain));
console.log(row("journal (replayable), at once", journaled));
console.log(row("journal (default, compact), at once", compact));
const overhead = (name: string, into: { ms: number[]; cpu: number[] }) =>
  console.log(
    `  ${name} overhead: ${(median(into.ms) / median(plain.ms)).toFixed(2)}× wall, ${(median(into.cpu) / median(plain.cpu)).toFixed(2)}× CPU (target ≤ 1.10×)`,
  );
overhead("default journal", compact);
overhead("replayable journal", journaled);
console.log(row(`recorded run, paced over ${TURN_MS / 1000} s`, paced));
console.log(row("replay of that journal", replays));
console.log(
  `  replay: ${(median(paced.ms) / median(replays.ms)).toFixed(1)}× faster than the recorded run (wall; target ≥ 20×), ${(median(paced.cpu) / median(replays.cpu)).toFixed(1)}× less CPU`,
);
