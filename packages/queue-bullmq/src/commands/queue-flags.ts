import { OutpostError, isOutpostError, type PluginCommandInput, type PluginCommandOption } from "@outpost/core";
import { openDispatchQueue, type DispatchQueue } from "../dispatch-queue.js";

/** The options every queue command takes: where Redis is, which queue, JSON lines. */
export const QUEUE_OPTIONS: readonly PluginCommandOption[] = [
  { name: "redis", value: "url", description: "Redis URL (default: OUTPOST_REDIS_URL, else redis://127.0.0.1:6379)" },
  { name: "queue", value: "name", description: "queue name (default: OUTPOST_QUEUE, else outpost-dispatch)" },
  { name: "json", description: "one JSON object per line" },
];

export function text(input: PluginCommandInput, name: string): string | undefined {
  const value = input.options[name];
  return typeof value === "string" ? value : undefined;
}

export function redisUrl(input: PluginCommandInput): string {
  return text(input, "redis") ?? process.env.OUTPOST_REDIS_URL ?? "redis://127.0.0.1:6379";
}

/** The queue the flags name, opened; closed by `work`'s end whatever happens. */
export async function withQueue<T>(input: PluginCommandInput, work: (queue: DispatchQueue) => Promise<T>): Promise<T> {
  const name = text(input, "queue") ?? process.env.OUTPOST_QUEUE;
  const url = redisUrl(input);
  try {
    const queue = openDispatchQueue({ url, ...(name ? { name } : {}) });
    try {
      return await work(queue);
    } finally {
      await queue.close();
    }
  } catch (caught) {
    if (isOutpostError(caught)) throw caught;
    throw new OutpostError(
      "process",
      `Queue command failed: ${caught instanceof Error ? caught.message : String(caught)}. Check that Redis answers at ${url.replace(/\/\/([^/@]*):[^/@]*@/, "//$1:***@")}.`,
      { cause: caught },
    );
  }
}
