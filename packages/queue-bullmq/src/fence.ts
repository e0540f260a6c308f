import type { Redis } from "ioredis";
import { OutpostError } from "@outpost/core";

// Every attempt at a job takes a new token (INCR). Only the holder of the latest token may push or commit its
// result, and the commit checks the token in the same Lua script that records the result pointer, so a worker
// that stalled past its lock and lost the job to another is refused, however late it wakes up.
const COMMIT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
redis.call('SET', KEYS[2], ARGV[2])
return 1`;

export interface Fence {
  readonly token: number;
  /** Throws code `conflict` when another attempt took the job since this one started. */
  check(action: string): Promise<void>;
  /** Records `resultKey` as the job's one result, atomically with the token check (code `conflict` otherwise). */
  commit(resultKey: string): Promise<void>;
}

export function fenceKeys(queueName: string, jobId: string): { fence: string; result: string } {
  // One hash tag per job keeps both keys in one slot on a Redis cluster.
  return { fence: `outpost:{${queueName}:${jobId}}:fence`, result: `outpost:{${queueName}:${jobId}}:result` };
}

/** Takes the next token of a job; the previous holder is fenced out from now on. */
export async function acquireFence(redis: Redis, queueName: string, jobId: string): Promise<Fence> {
  const keys = fenceKeys(queueName, jobId);
  const token = await redis.incr(keys.fence);
  const fencedOut = (action: string, current: string | null) =>
    new OutpostError(
      "conflict",
      `Job ${jobId}: this worker's attempt (fence ${token}) was taken over by another (fence ${current ?? "?"}), so it may not ${action}. The other attempt's result stands.`,
      { details: { job: jobId, fence: token, current } },
    );
  return {
    token,
    check: async (action) => {
      const current = await redis.get(keys.fence);
      if (current !== String(token)) throw fencedOut(action, current);
    },
    commit: async (resultKey) => {
      const outcome = (await redis.eval(COMMIT, 2, keys.fence, keys.result, String(token), resultKey)) as number;
      if (outcome === 0) throw fencedOut("record its result", await redis.get(keys.fence));
      if (outcome === -1)
        throw new OutpostError("conflict", `Job ${jobId} already has a recorded result; this attempt (fence ${token}) is refused.`, {
          details: { job: jobId, fence: token },
        });
    },
  };
}

/** The committed result key of a job, if any. */
export async function committedResultKey(redis: Redis, queueName: string, jobId: string): Promise<string | undefined> {
  return (await redis.get(fenceKeys(queueName, jobId).result)) ?? undefined;
}
