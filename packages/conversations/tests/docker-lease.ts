import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxLease } from "@outpost/core";
import { dockerProvider } from "@outpost/provider-docker";
import { TEST_IMAGE } from "@outpost/testkit/gates";

/** Runs `body` in a Docker lease on a fresh workspace owned by the lease user; always cleans up. */
export async function withDockerLease<T>(body: (lease: SandboxLease) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), "outpost-conversations-docker-"));
  try {
    if (process.getuid?.() === 0) await chown(directory, 1000, 1000);
    const context = { repository: directory, directory, gitDirectories: [], variables: {} };
    const lease = await dockerProvider({ image: TEST_IMAGE, network: "none" }).acquire(context);
    try {
      return await body(lease);
    } finally {
      await lease.release();
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
