import { gate } from "@outpost/testkit";
import { startMotoServer, type MotoServer } from "./moto-server.js";

/**
 * Starts a moto_server for one test file, or explains why it could not: a named skip on a machine
 * without moto, a failure when OUTPOST_REQUIRE_S3=1 (CI).
 */
export async function s3Gate(): Promise<{ server?: MotoServer; unavailable?: { reason: string } }> {
  try {
    return { server: await startMotoServer() };
  } catch (error) {
    return gate("S3", `no S3 server: moto_server could not start (${(error as Error).message.slice(0, 200)})`);
  }
}
