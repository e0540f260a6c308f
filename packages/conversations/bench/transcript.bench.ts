// Capture + restore of a large transcript through a local-provider lease, against floors measured in the
// same run: a raw copy of the same file (twice: out of the sandbox, back into another), and the raw lease
// transfer (download + upload). Then peak RSS of the whole operation for 10 MB and 50 MB transcripts, each in
// its own process: it must stay flat. Prints medians and ratios; asserts nothing.
//   npx tsx packages/conversations/bench/transcript.bench.ts
import { spawnSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const ROUNDS = Number(process.env.OUTPOST_BENCH_ROUNDS ?? 5);
const ID = "b3e51ce2-6f00-4f22-8000-0000000000b5";

// Sibling packages are loaded from their sources: re-run under the `outpost-source` condition if needed.
if (process.env.OUTPOST_BENCH_SOURCE !== "1") {
  const result = spawnSync(process.execPath, ["--conditions=outpost-source", "--import", "tsx", SELF, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, OUTPOST_BENCH_SOURCE: "1" },
  });
  process.exit(result.status ?? 1);
}

const { localProvider } = await import("@outpost/provider-local");
const { transcriptStore } = await import("../src/index.js");
const { demoTranscript, transcriptLine } = await import("../tests/demo-transcript.js");

async function setup(megabytes: number) {
  const base = await mkdtemp(join(tmpdir(), "outpost-bench-"));
  const make = async (name: string) => {
    await mkdir(join(base, name), { recursive: true });
    return localProvider().acquire({ repository: join(base, name), directory: join(base, name), gitDirectories: [], variables: {} });
  };
  const source = await make("repo");
  const target = await make("project");
  const folder = join(source.home, ".demo-transcript", "sessions", "repo");
  await mkdir(folder, { recursive: true });
  const file = join(folder, `${ID}.jsonl`);
  // Written in 1 MB blocks so the set-up itself does not hold the transcript in memory. One line in 20
  // carries a terminal escape (`\u001b`), as tool output does, which takes the string-by-string path.
  const handle = await open(file, "w");
  let size = 0;
  for (let index = 0; size < megabytes * 1024 * 1024; ) {
    let block = "";
    while (block.length < 1024 * 1024) {
      const line = transcriptLine(index, source.root, source.home);
      block += index % 20 === 0 ? line.replace('"index"', '"ansi":"\\u001b[31m","index"') : line;
      index += 1;
    }
    await handle.write(block);
    size += Buffer.byteLength(block);
  }
  await handle.close();
  const store = transcriptStore(demoTranscript);
  // Host placement: the local provider's sandbox files are the host's, so the store works in-process.
  const context = (lease: typeof source, name: string) => ({ repository: lease.root, sandbox: lease, staging: join(base, `${name}-staging`), home: join(base, `${name}-host`), local: true });
  return {
    base,
    file,
    size: (await stat(file)).size,
    async roundTrip() {
      const record = await store.capture(ID, context(source, "source"));
      await store.restore(record, context(target, "target"));
    },
    async roundTripScripts() {
      const record = await store.capture(ID, { ...context(source, "source"), local: false });
      await store.restore(record, { ...context(target, "target"), local: false });
    },
    async rawCopy(round: number) {
      const middle = join(base, `raw-${round}.jsonl`);
      await copyFile(file, middle);
      await copyFile(middle, join(target.home, `raw-${round}.jsonl`));
    },
    async rawLease(round: number) {
      const middle = join(base, `lease-${round}.jsonl`);
      await source.download(file, middle);
      await target.upload(middle, join(target.home, `lease-${round}.jsonl`));
    },
    async dispose() {
      await source.release();
      await target.release();
      await rm(base, { recursive: true, force: true });
    },
  };
}

async function median(body: (round: number) => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    await body(round);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

if (process.argv[2] === "--peak") {
  // One capture + restore in a fresh process; report its peak RSS.
  const bench = await setup(Number(process.argv[3]));
  const before = process.memoryUsage().rss;
  await bench.roundTrip();
  console.log(JSON.stringify({ size: bench.size, baseline: before, peak: process.resourceUsage().maxRSS * 1024 }));
  await bench.dispose();
  process.exit(0);
}

const megabytes = Number(process.env.OUTPOST_BENCH_MB ?? 50);
const bench = await setup(megabytes);
try {
  await bench.roundTrip(); // warm-up
  const floor = await median((round) => bench.rawCopy(round));
  const lease = await median((round) => bench.rawLease(round));
  const ours = await median(() => bench.roundTrip());
  const scripts = await median(() => bench.roundTripScripts());
  const mb = (bench.size / 1024 / 1024).toFixed(1);
  console.log(`transcript ${mb} MB, median of ${ROUNDS}`);
  console.log(`  raw copy out and back (floor)     ${floor.toFixed(0).padStart(6)} ms`);
  console.log(`  raw lease download + upload       ${lease.toFixed(0).padStart(6)} ms  ${(lease / floor).toFixed(2)}x floor`);
  console.log(`  capture + restore, local context  ${ours.toFixed(0).padStart(6)} ms  ${(ours / floor).toFixed(2)}x floor, ${(ours / lease).toFixed(2)}x raw lease (goal ≤ 1.5x)`);
  console.log(`  capture + restore, node scripts   ${scripts.toFixed(0).padStart(6)} ms  ${(scripts / floor).toFixed(2)}x floor, ${(scripts / lease).toFixed(2)}x raw lease (4 node starts in the sandbox)`);
} finally {
  await bench.dispose();
}

const peaks = [10, 50].map((size) => {
  const result = spawnSync(process.execPath, [...process.execArgv, SELF, "--peak", String(size)], { encoding: "utf8", env: process.env });
  const line = result.stdout.trim().split("\n").pop() ?? "{}";
  return { ...(JSON.parse(line) as { peak: number; baseline: number }), size };
});
for (const peak of peaks) {
  console.log(`  peak RSS, ${String(peak.size).padStart(2)} MB transcript          ${(peak.peak / 1024 / 1024).toFixed(0).padStart(6)} MB (process baseline ${(peak.baseline / 1024 / 1024).toFixed(0)} MB)`);
}
console.log(`  peak growth 10 → 50 MB             ${((peaks[1]!.peak - peaks[0]!.peak) / 1024 / 1024).toFixed(0).padStart(6)} MB (flat = does not grow with the transcript)`);
