import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxLease } from "@outpost/core";

/** Text of a file in the lease (relative to its root), read through the lease's own download. */
export async function readLeaseFile(lease: SandboxLease, path: string): Promise<string> {
  const staging = await mkdtemp(join(tmpdir(), "outpost-read-"));
  try {
    await lease.download(path, join(staging, "file"));
    return await readFile(join(staging, "file"), "utf8");
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
