import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentHomeFile, SandboxLease } from "@outpost/core";

/**
 * Writes an agent's home files into the lease home through the lease's own upload (so it works for every
 * provider): 0600 files in 0700 directories, staged on the host first.
 */
export async function writeHomeFiles(lease: SandboxLease, files: readonly AgentHomeFile[]): Promise<void> {
  if (files.length === 0) return;
  const staging = await mkdtemp(join(tmpdir(), "outpost-home-files-"));
  try {
    for (const file of files) {
      if (file.path.startsWith("/") || file.path.split("/").includes("..")) throw new Error(`home file ${file.path} escapes the home`);
      const target = join(staging, file.path);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, file.content, { mode: 0o600 });
      await chmod(target, 0o600);
    }
    await lease.upload(staging, lease.home);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
