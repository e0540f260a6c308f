import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { OutpostError } from "@outpost/core";
import type { DispatchJob } from "./dispatch-job.js";
import type { DispatchJobResult } from "./dispatch-job-result.js";

/** Where a queue lives: a Redis URL (e.g. `redis://127.0.0.1:6379/0`) and the queue's name. */
export interface DispatchQueueOptions {
  readonly url: string;
  /** Default `outpost-dispatch`. Letters, digits, `.`, `_` and `-`. */
  readonly name?: string;
}

/** A queue of dispatches; one per process is enough (BullMQ multiplexes its own connections). */
export interface DispatchQueue {
  readonly name: string;
  readonly url: string;
  /** The BullMQ queue, for what this package does not wrap (counts, cleaning, dashboards). */
  readonly queue: Queue<QueuedDispatch, DispatchJobResult>;
  /** A plain connection for the fence and result pointers. */
  readonly redis: Redis;
  close(): Promise<void>;
}

/** What the queue holds for one job: the job and the id of the enqueue that added it. */
export interface QueuedDispatch {
  readonly job: DispatchJob;
  readonly enqueueId: string;
}

export const DEFAULT_QUEUE_NAME = "outpost-dispatch";
const QUEUE_NAME = /^[A-Za-z0-9._-]{1,100}$/;

export function openDispatchQueue(options: DispatchQueueOptions): DispatchQueue {
  const name = options.name ?? DEFAULT_QUEUE_NAME;
  if (!QUEUE_NAME.test(name))
    throw new OutpostError(
      "configuration",
      `Queue name ${JSON.stringify(name)} is not valid: use 1 to 100 letters, digits, '.', '_' or '-'.`,
    );
  if (!/^rediss?:\/\//.test(options.url))
    throw new OutpostError(
      "configuration",
      `Redis URL ${JSON.stringify(redactUrl(options.url))} is not valid: use redis://host:port[/db] or rediss://….`,
    );
  // maxRetriesPerRequest null: commands wait for a reconnect instead of failing while Redis restarts.
  const connection = { url: options.url, maxRetriesPerRequest: null };
  const queue = new Queue<QueuedDispatch, DispatchJobResult>(name, { connection });
  const redis = new Redis(options.url, { maxRetriesPerRequest: null, lazyConnect: false });
  redis.on("error", () => undefined); // reconnects on its own; callers see failures on their commands
  queue.on("error", () => undefined);
  return {
    name,
    url: options.url,
    queue,
    redis,
    close: async () => {
      await queue.close();
      redis.disconnect();
    },
  };
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^/@]*):[^/@]*@/, "//$1:***@");
}
