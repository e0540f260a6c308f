import { LineSplitter } from "@outpost/core";
import type { AgentLineDecoder } from "@outpost/core";

export interface DecodeBenchOptions {
  readonly name: string;
  readonly createDecoder: () => AgentLineDecoder;
  /** Lines of real recorded streams, cycled to build the workload. */
  readonly recorded: readonly string[];
  /** Lines in the throughput pass (default 300,000). */
  readonly lines?: number;
  /** Characters fed in the memory pass (default `OUTPOST_BENCH_BYTES` or 256 MiB). */
  readonly bytes?: number;
}

export interface DecodeBenchResult {
  readonly linesPerSecond: number;
  /** `JSON.parse` of the same lines in the same run: the least any JSONL decoder must do. */
  readonly floorLinesPerSecond: number;
  readonly streamLinesPerSecond: number;
  readonly peakRssBytes: number;
}

const GOAL_LINES_PER_SECOND = 200_000;
const CHUNK = 64 * 1024;

/**
 * Measures a decoder's throughput against a `JSON.parse` floor measured in the same run, then feeds a
 * generated stream through core's LineSplitter in 64 KiB chunks and samples memory by tenths: flat means
 * the decoder keeps no per-line state. Prints one report line per pass. Run node with `--expose-gc` to
 * add the live heap after a full collection.
 */
export function runDecodeBench(options: DecodeBenchOptions): DecodeBenchResult {
  if (options.recorded.length === 0)
    throw new Error(`runDecodeBench(${options.name}): \`recorded\` is empty; pass the lines of a recorded stream.`);
  const count = options.lines ?? 300_000;
  const lines = Array.from({ length: count }, (_, index) => options.recorded[index % options.recorded.length] as string);
  const averageBytes = lines.reduce((sum, line) => sum + line.length, 0) / count;
  let sink = 0;
  const floor =
    count /
    fastestSeconds(() => {
      for (const line of lines) sink += JSON.parse(line) ? 1 : 0;
    });
  const decode =
    count /
    fastestSeconds(() => {
      const decoder = options.createDecoder();
      for (const line of lines) sink += decoder.decode(line).length;
    });
  console.log(
    `${options.name} decode: ${rate(decode)} lines/s (goal >= ${rate(GOAL_LINES_PER_SECOND)}: ${decode >= GOAL_LINES_PER_SECOND ? "met" : "MISSED"}), ` +
      `average line ${Math.round(averageBytes)} B | floor JSON.parse ${rate(floor)} lines/s | decode/floor ${(decode / floor).toFixed(2)}`,
  );
  const stream = streamPass(options, (events) => (sink += events));
  if (sink < 0) console.log(sink);
  return { linesPerSecond: decode, floorLinesPerSecond: floor, ...stream };
}

function streamPass(
  options: DecodeBenchOptions,
  consume: (events: number) => void,
): { streamLinesPerSecond: number; peakRssBytes: number } {
  const total = options.bytes ?? Number(process.env["OUTPOST_BENCH_BYTES"] ?? 256 * 1024 ** 2);
  // The stream is generated chunk by chunk and never stored; events are dropped once counted.
  const block = `${options.recorded.join("\n")}\n`;
  const splitter = new LineSplitter();
  const decoder = options.createDecoder();
  const collect = (globalThis as { gc?: () => void }).gc;
  const rss: number[] = [];
  const heaps: number[] = [];
  let fed = 0;
  let offset = 0;
  let decoded = 0;
  const started = process.hrtime.bigint();
  while (fed < total) {
    let chunk = "";
    while (chunk.length < CHUNK) {
      const piece = block.slice(offset, offset + CHUNK - chunk.length);
      chunk += piece;
      offset = (offset + piece.length) % block.length;
    }
    fed += chunk.length;
    for (const line of splitter.push(chunk)) {
      decoded++;
      consume(decoder.decode(line).length);
    }
    if (fed >= ((rss.length + 1) * total) / 10) {
      collect?.();
      const memory = process.memoryUsage();
      rss.push(memory.rss);
      heaps.push(memory.heapUsed);
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const peak = Math.max(...rss);
  console.log(
    `${options.name} stream: ${mib(fed)}, ${rate(decoded)} lines in ${seconds.toFixed(1)} s (${rate(decoded / seconds)} lines/s) | ` +
      `rss by tenths: ${rss.map((sample) => (sample / 1024 ** 2).toFixed(0)).join(" ")} MiB | peak ${mib(peak)}, first tenth ${mib(rss[0] ?? 0)}` +
      (collect ? ` | live heap after GC by tenths: ${heaps.map((heap) => (heap / 1024 ** 2).toFixed(1)).join(" ")} MiB` : ""),
  );
  return { streamLinesPerSecond: decoded / seconds, peakRssBytes: peak };
}

/** Fastest of three timed runs after one warm-up run (the JIT). */
function fastestSeconds(run: () => void): number {
  run();
  let fastest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const started = process.hrtime.bigint();
    run();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - started) / 1e9);
  }
  return fastest;
}

function rate(value: number): string {
  return Math.round(value).toLocaleString("en");
}

function mib(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
}
