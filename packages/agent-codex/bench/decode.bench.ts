// Decoding throughput and memory of CodexDecoder on a large stream cycled from recorded 0.171.0 output.
//   npx tsx packages/agent-codex/bench/decode.bench.ts              (memory pass over 1 GiB)
//   node --expose-gc --import tsx packages/agent-codex/bench/decode.bench.ts   (adds live heap after GC)
//   OUTPOST_BENCH_BYTES=268435456 npx tsx packages/agent-codex/bench/decode.bench.ts
// Floor: JSON.parse of the same lines in the same run, the least any JSONL decoder must do.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LineSplitter } from "@outpost/core";
import type { AgentLineDecoder } from "@outpost/core";
import { CodexDecoder } from "../src/index.js";

const NAME = "codex";
const STREAMS = ["codex-0.171.0-write-file.jsonl", "codex-0.171.0-tool-failure-and-patch.jsonl"];
const createDecoder = (): AgentLineDecoder => new CodexDecoder();

const recorded = STREAMS.flatMap((file) =>
  readFileSync(join(import.meta.dirname, "..", "tests", "fixtures", "streams", file), "utf8").split("\n").filter((line) => line.length > 0),
);
const LINES = 300_000;
const lines = Array.from({ length: LINES }, (_, index) => recorded[index % recorded.length] ?? "");
const averageBytes = lines.reduce((sum, line) => sum + line.length, 0) / LINES;
let sink = 0;

function bestRate(run: () => void): number {
  let best = 0;
  for (let round = 0; round < 4; round++) {
    const started = process.hrtime.bigint();
    run();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (round > 0) best = Math.max(best, LINES / seconds); // round 0 warms the JIT up
  }
  return best;
}

const floor = bestRate(() => {
  for (const line of lines) sink += JSON.parse(line) ? 1 : 0;
});
const decode = bestRate(() => {
  const decoder = createDecoder();
  for (const line of lines) sink += decoder.decode(line).length;
});
const rate = (value: number) => Math.round(value).toLocaleString("en");
console.log(`${NAME} decode: ${rate(decode)} lines/s (goal >= 200,000), average line ${Math.round(averageBytes)} B | floor JSON.parse ${rate(floor)} lines/s | decode/floor ${(decode / floor).toFixed(2)}`);

// Memory: the stream is generated chunk by chunk (64 KiB) and never stored; events are dropped once counted.
const total = Number(process.env["OUTPOST_BENCH_BYTES"] ?? 1024 ** 3);
const block = `${recorded.join("\n")}\n`;
const splitter = new LineSplitter();
const decoder = createDecoder();
const samples: number[] = [];
const heaps: number[] = [];
// With --expose-gc the live heap after a full collection is sampled too: RSS alone also counts garbage not yet collected.
const collect = (globalThis as { gc?: () => void }).gc;
let fed = 0;
let offset = 0;
let decoded = 0;
const started = process.hrtime.bigint();
while (fed < total) {
  let chunk = "";
  while (chunk.length < 64 * 1024) {
    const piece = block.slice(offset, offset + 64 * 1024 - chunk.length);
    chunk += piece;
    offset = (offset + piece.length) % block.length;
  }
  fed += chunk.length;
  for (const line of splitter.push(chunk)) {
    decoded++;
    sink += decoder.decode(line).length;
  }
  if (fed >= ((samples.length + 1) * total) / 10) {
    collect?.();
    const memory = process.memoryUsage();
    samples.push(memory.rss);
    heaps.push(memory.heapUsed);
  }
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
console.log(
  `${NAME} stream: ${mib(fed)}, ${rate(decoded)} lines in ${seconds.toFixed(1)} s (${rate(decoded / seconds)} lines/s) | ` +
    `rss by tenths: ${samples.map((sample) => (sample / 1024 ** 2).toFixed(0)).join(" ")} MiB | peak ${mib(Math.max(...samples))}, first tenth ${mib(samples[0] ?? 0)}` +
    (collect ? ` | live heap after GC by tenths: ${heaps.map((heap) => (heap / 1024 ** 2).toFixed(1)).join(" ")} MiB` : ""),
);
if (sink < 0) console.log(sink);
