import type { Redis } from "ioredis";
import { OutpostError } from "@outpost/core";
import { redactUrl } from "./dispatch-queue.js";

/**
 * BullMQ keeps jobs and locks as ordinary keys: a Redis that evicts keys under memory pressure silently loses
 * jobs. Reads `maxmemory_policy` from INFO (CONFIG may be disabled on managed Redis).
 */
export async function assertNoEviction(redis: Redis, url: string): Promise<void> {
  const info = await redis.info("memory");
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  if (policy === "noeviction") return;
  throw new OutpostError(
    "configuration",
    `Redis at ${redactUrl(url)} has maxmemory-policy ${policy ?? "unknown"}; the queue needs noeviction or jobs can vanish under memory pressure. ` +
      `Set "maxmemory-policy noeviction" in redis.conf (or CONFIG SET maxmemory-policy noeviction).`,
    { details: { policy: policy ?? null } },
  );
}
