// Capture + restore of a large transcript through a local-provider lease, against floors measured in the
// same run: a raw copy of the same file (twice: out of the sandbox, back into another), and the raw lease
// transfer (download + upload). Captures and restored sessions are removed between rounds (untimed), as the raw
// copies write new files; one variant also measures capture + restore over the previous ones. Then peak
// RSS of the whole operation for 10 MB and 50 MB transcripts, each in
// its own process: it must stay flat. Prints medians and ratios; asserts nothing.
//   npm run bench -w @outpost/conversations   (builds first; the bench measures dist/)
import { spawnSync } from "node:child_process";
import { createReadStream, createWriteStream } from "node:fs";
import { copyFile, mkdir, mkdtemp, open, readFile, rm, stat } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const ROUNDS = Number(process.env.OUTPOST_BENCH_ROUNDS ?? 5);
const ID = "b3e51ce2-6f00-4f22-8000-0000000000b5";
const RECORDED = fileURLToPath(
  new URL(
    "../../agent-claude/tests/fixtures/sessions/claude/home/.claude/projects/-tmp-outpost-fixture-work-repo/36c73ea0-946c-47ed-8edf-38f66599c694.jsonl",
    import.meta.url,
  ),
);

// The packages are loaded as they ship, from their built dist/ (the bench script builds them first).
const { localProvider } = await import("@outpost/provider-local");
const { transcriptStore } = await import("@outpost/conversations");
const { demoTranscript, transcriptLine } = await import("../tests/demo-transcript.js");

async function generate(file: string, megabytes: number, root: string, home: string): Promise<void> {
  const recorded = (await readFile(RECORDED, "utf8"))
    .split("/tmp/outpost-fixture/work/repo")
    .join(root)
    .split("/tmp/outpost-fixture/home")
    .join(home)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => `${line}\n`);
  const handle = await open(file, "w");
  let size = 0;
  for (let index = 0; size < megabytes * 1024 * 1024;) {
    let block = "";
    while (block.length < 1024 * 1024) {
      block += recorded[index % recorded.length]!;
      if (index % 20 === 0) block += transcriptLine(index, root, home).replace('"index"', '"ansi":"\\u001b[31m","index"');
      index += 1;
    }
    await handle.write(block);
    size += Buffer.byteLength(block);
  }
  await handle.close();
}

async function setup(megabytes: number, generateElsewhere = false) {
  const base = await mkdtemp(join(tmpdir(), "outpost-bench-"));
  const make = async (name: string) => {
    await mkdir(join(base, name), { recursive: true });
    return localProvider({ home: "private" }).acquire({
      repository: join(base, name),
      directory: join(base, name),
      gitDirectories: [],
      variables: {},
    });
  };
  const source = await make("repo");
  const target = await make("project");
  const folder = join(source.home, ".demo-transcript", "sessions", "repo");
  await mkdir(folder, { recursive: true });
  const file = join(folder, `${ID}.jsonl`);
  // The real Claude Code session recorded in the agent-claude fixtures, its paths moved to this sandbox,
  // repeated to the wanted size; one line in 20 of the synthetic, path-dense lines of the tests between
  // (with a terminal escape, `\u001b`, as tool output has). Written in 1 MB blocks so the set-up itself
  // does not hold the transcript in memory.
  if (generateElsewhere) {
    // A separate process writes the file, so this one's peak RSS measures the capture and restore only.
    const result = spawnSync(
      process.execPath,
      [...process.execArgv, SELF, "--generate", file, String(megabytes), source.root, source.home],
      { stdio: "inherit", env: process.env },
    );
    if (result.status !== 0) throw new Error("could not generate the transcript");
  } else {
    await generate(file, megabytes, source.root, source.home);
  }
  const store = transcriptStore(demoTranscript);
  // Host placement: the local provider's sandbox files are the host's, so the store works in-process.
  const context = (lease: typeof source, name: string) => ({
    repository: lease.root,
    sandbox: lease,
    staging: join(base, `${name}-staging`),
    home: join(base, `${name}-host`),
    local: true,
  });
  return {
    base,
    file,
    size: (await stat(file)).size,
    async roundTrip() {
      const record = await store.capture(ID, context(source, "source"));
      await store.restore(record, context(target, "target"));
    },
    /** Removes the capture and the restored session, so the next round writes them afresh as the raw copies do. */
    async forget() {
      await rm(join(base, "source-host"), { recursive: true, force: true });
      await rm(join(target.home, ".demo-transcript"), { recursive: true, force: true });
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
    async rawStream(round: number) {
      const middle = join(base, `stream-${round}.jsonl`);
      await pipeline(createReadStream(file, { highWaterMark: 1024 * 1024 }), createWriteStream(middle));
      await pipeline(
        createReadStream(middle, { highWaterMark: 1024 * 1024 }),
        createWriteStream(join(target.home, `stream-${round}.jsonl`)),
      );
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

interface Variant {
  readonly run: (round: number) => Promise<void>;
  /** Untimed clean-up after each round. */
  readonly after?: () => Promise<void>;
}

/** Runs the variants in turn, round after round (so load drift hits them alike), and returns medians. */
async function medians(variants: Record<string, Variant>): Promise<Record<string, number>> {
  const times: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, variant] of Object.entries(variants)) {
      const started = performance.now();
      await variant.run(round);
      (times[name] ??= []).push(performance.now() - started);
      await variant.after?.();
    }
  }
  return Object.fromEntries(Object.entries(times).map(([name, list]) => [name, list.sort((a, b) => a - b)[Math.floor(list.length / 2)]!]));
}

if (process.argv[2] === "--generate") {
  const [file, megabytes, root, home] = process.argv.slice(3) as [string, string, string, string];
  await generate(file, Number(megabytes), root, home);
  process.exit(0);
}

if (process.argv[2] === "--peak") {
  // One capture + restore in a fresh process; report its peak RSS.
  const bench = await setup(Number(process.argv[3]), true);
  (globalThis as { gc?: () => void }).gc?.();
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
  await bench.forget();
  const times = await medians({
    floor: { run: (round) => bench.rawCopy(round) },
    stream: { run: (round) => bench.rawStream(round) },
    lease: { run: (round) => bench.rawLease(round) },
    ours: { run: () => bench.roundTrip() },
    // Again, over the capture and session `ours` left: replacing them frees 2 × the transcript on the disk.
    over: { run: () => bench.roundTrip(), after: () => bench.forget() },
    scripts: { run: () => bench.roundTripScripts(), after: () => bench.forget() },
  });
  const { floor, stream, lease, ours, over, scripts } = times;
  const line = (label: string, value: number, extra = "") =>
    console.log(`  ${label.padEnd(36)}${value.toFixed(0).padStart(6)} ms  ${(value / floor!).toFixed(2)}x floor${extra}`);
  console.log(`transcript ${(bench.size / 1024 / 1024).toFixed(1)} MB, median of ${ROUNDS} interleaved rounds`);
  line("raw copyFile out and back (floor)", floor!);
  line("raw streamed copy out and back", stream!);
  line("raw lease download + upload", lease!);
  line(
    "capture + restore, local context",
    ours!,
    `, ${(ours! / lease!).toFixed(2)}x raw lease, ${(ours! / stream!).toFixed(2)}x streamed copy (goal ≤ 1.5x)`,
  );
  line("  the same over the previous ones", over!, `, ${(over! / lease!).toFixed(2)}x raw lease (replacing the last capture and session)`);
  line("capture + restore, node scripts", scripts!, `, ${(scripts! / lease!).toFixed(2)}x raw lease (4 node starts in the sandbox)`);
} finally {
  await bench.dispose();
}

const peaks = [10, 50].map((size) => {
  const result = spawnSync(process.execPath, [...process.execArgv, "--expose-gc", SELF, "--peak", String(size)], {
    encoding: "utf8",
    env: process.env,
  });
  const line = result.stdout.trim().split("\n").pop() ?? "{}";
  return { ...(JSON.parse(line) as { peak: number; baseline: number }), size };
});
for (const peak of peaks) {
  console.log(
    `  peak RSS, ` +
      `${String(peak.size).padStart(2)} MB transcript              ${(peak.peak / 1024 / 1024).toFixed(0).padStart(6)} ` +
      `MB (${((peak.peak - peak.baseline) / 1024 / 1024).toFixed(0)} MB above the process baseline)`,
  );
}
const above = peaks.map((peak) => peak.peak - peak.baseline);
console.log(
  `  peak above baseline, 10 → 50 MB       ${(above[0]! / 1024 / 1024).toFixed(0)} → ${(above[1]! / 1024 / 1024).toFixed(0)} MB (flat = does not grow with the transcript)`,
);
