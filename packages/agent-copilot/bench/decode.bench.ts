/**
 * Decoder throughput and memory for the Copilot, opencode and Kimi decoders.
 *
 *   npx tsx packages/agent-copilot/bench/decode.bench.ts [--gigabytes 1]
 *
 * 1. lines/s on a large stream built from the recorded fixtures, against a floor measured in the same run:
 *    `JSON.parse` of every line (the least any JSONL decoder must do). Goal: ≥ 200,000 lines/s.
 * 2. Peak memory while a generated stream (default 1 GB) goes through LineSplitter + decoder in 64 KiB
 *    chunks, sampled every 64 MiB: flat means the decoder keeps no per-line state.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// Sibling packages resolve to their TypeScript sources only under the `outpost-source` condition.
if (process.env["OUTPOST_BENCH_CHILD"] !== "1") {
  const child = spawnSync(process.execPath, [...process.execArgv, "--conditions=outpost-source", "--expose-gc", fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, OUTPOST_BENCH_CHILD: "1" },
  });
  process.exit(child.status ?? 1);
}

interface Decoder {
  decode(line: string): unknown[];
}
interface Subject {
  readonly name: string;
  readonly create: () => Decoder;
  readonly fixtures: readonly string[];
}

const gigabytes = Number(argument("--gigabytes") ?? "1");
const { LineSplitter } = await import("@outpost/core");
const { copilotAgent } = await import("@outpost/agent-copilot");
const { opencodeAgent } = await import("@outpost/agent-opencode");
const { kimiAgent } = await import("@outpost/agent-kimi");

const fixture = (pkg: string, name: string) => readFileSync(new URL(`../../${pkg}/tests/fixtures/${name}`, import.meta.url), "utf8");
const subjects: Subject[] = [
  {
    name: "copilot",
    create: () => copilotAgent().createDecoder(),
    fixtures: [fixture("agent-copilot", "streams/copilot-1.0.102-turn1-tool-call.jsonl"), fixture("agent-copilot", "failures/copilot-1.0.102-http-429.jsonl")],
  },
  {
    name: "opencode",
    create: () => opencodeAgent().createDecoder(),
    fixtures: [fixture("agent-opencode", "streams/opencode-1.18.33-turn1-tool-call.jsonl"), fixture("agent-opencode", "streams/opencode-1.18.33-tool-error.jsonl")],
  },
  {
    name: "kimi",
    create: () => kimiAgent().createDecoder(),
    fixtures: [fixture("agent-kimi", "streams/kimi-documented-print-mode.jsonl"), fixture("agent-kimi", "streams/kimi-constructed-parts.jsonl")],
  },
];

console.log(`node ${process.version}; stream for memory: ${gigabytes} GB per decoder\n`);
console.log("decoder   lines      avg bytes  decode lines/s  JSON.parse floor lines/s  ratio  goal 200k");
for (const subject of subjects) {
  const lines = subject.fixtures.join("").split("\n").filter((line) => line.length > 0);
  const stream = Array.from({ length: 200_000 }, (_, index) => lines[index % lines.length] as string);
  const bytes = stream.reduce((sum, line) => sum + line.length, 0) / stream.length;
  const floor = best(() => {
    for (const line of stream) JSON.parse(line);
  });
  const decoded = best(() => {
    const decoder = subject.create();
    for (const line of stream) decoder.decode(line);
  });
  const rate = stream.length / decoded;
  console.log(
    `${subject.name.padEnd(9)} ${String(stream.length).padEnd(10)} ${bytes.toFixed(0).padStart(9)}  ${fmt(rate).padStart(14)}  ${fmt(stream.length / floor).padStart(24)}  ${(floor / decoded).toFixed(2).padStart(5)}  ${rate >= 200_000 ? "met" : "MISSED"}`,
  );
}

console.log("\ndecoder   MB decoded  seconds  MB/s   heap MB start→peak→end   rss MB start→peak→end");
for (const subject of subjects) {
  const block = makeBlock(subject.fixtures.join(""));
  const total = gigabytes * 1024 ** 3;
  const splitter = new LineSplitter();
  const decoder = subject.create();
  global.gc?.();
  const start = process.memoryUsage();
  let peakHeap = start.heapUsed;
  let peakRss = start.rss;
  let fed = 0;
  let nextSample = 64 * 1024 ** 2;
  const began = performance.now();
  // Cut each block at a moving offset so lines are split across chunks, as a pipe delivers them.
  let cut = 1;
  while (fed < total) {
    cut = (cut * 7919) % block.length || 1;
    for (const chunk of [block.slice(0, cut), block.slice(cut)]) for (const line of splitter.push(chunk)) decoder.decode(line);
    fed += block.length;
    if (fed >= nextSample) {
      nextSample += 64 * 1024 ** 2;
      const now = process.memoryUsage();
      peakHeap = Math.max(peakHeap, now.heapUsed);
      peakRss = Math.max(peakRss, now.rss);
    }
  }
  for (const line of splitter.flush()) decoder.decode(line);
  const seconds = (performance.now() - began) / 1000;
  const end = process.memoryUsage();
  console.log(
    `${subject.name.padEnd(9)} ${(fed / 1024 ** 2).toFixed(0).padStart(10)}  ${seconds.toFixed(1).padStart(7)}  ${(fed / 1024 ** 2 / seconds).toFixed(0).padStart(4)}   ${mb(start.heapUsed)}→${mb(peakHeap)}→${mb(end.heapUsed)}`.padEnd(67) +
      `${mb(start.rss)}→${mb(peakRss)}→${mb(end.rss)}`,
  );
}

/** Fastest of five runs, in seconds. */
function best(run: () => void): number {
  run();
  let fastest = Infinity;
  for (let attempt = 0; attempt < 5; attempt++) {
    const began = performance.now();
    run();
    fastest = Math.min(fastest, (performance.now() - began) / 1000);
  }
  return fastest;
}

function makeBlock(text: string): string {
  let block = text;
  while (block.length < 64 * 1024) block += text;
  return block;
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function fmt(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function mb(bytes: number): string {
  return (bytes / 1024 ** 2).toFixed(0);
}
