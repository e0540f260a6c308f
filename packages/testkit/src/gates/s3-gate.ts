import { gate } from "../shared/gate.js";
import type { Unavailable } from "../shared/suite-options.js";
import { startMotoServer, type MotoServer } from "./moto-server.js";

/**
 * Starts a moto_server for one test file, or explains why it could not: a named skip on a machine
 * without moto, a throw under OUTPOST_REQUIRE_S3=1 (CI).
 */
export async function s3Gate(environment: Record<string, string> = {}): Promise<{ server?: MotoServer; unavailable?: Unavailable }> {
  try {
    return { server: await startMotoServer(environment) };
  } catch (error) {
    return gate("S3", `no S3 server: moto_server could not start (${(error as Error).message.slice(0, 200)})`);
  }
}
