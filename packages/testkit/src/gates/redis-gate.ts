import { gate } from "../shared/gate.js";
import type { Unavailable } from "../shared/suite-options.js";
import { startRedisServer, type RedisServer, type RedisServerOptions } from "./redis-server.js";

/**
 * Starts a private redis-server for one test file, or explains why it could not: a named skip on a machine
 * without Redis, a throw under OUTPOST_REQUIRE_REDIS=1 (CI).
 */
export async function redisGate(options: RedisServerOptions = {}): Promise<{ server?: RedisServer; unavailable?: Unavailable }> {
  try {
    return { server: await startRedisServer(options) };
  } catch (error) {
    return gate("Redis", `no Redis server: ${(error as Error).message.slice(0, 200)} (Debian: apt-get install redis-server)`);
  }
}
