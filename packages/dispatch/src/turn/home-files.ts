import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { normalizeRelativePath, type AgentHomeFile, type SandboxLease } from "@outpost/core";

/**
 * Writes the agent's settings files into the lease home: staged on the host as 0600 files in 0700
 * directories, then uploaded (uploads keep modes). A path leaving the home is refused (code `workspace`).
 */
export async function writeHomeFiles(lease: SandboxLease, files: readonly AgentHomeFile[], staging: string, signal?: AbortSignal): Promise<void> {
  if (files.length === 0) return;
  const paths = files.map((file) => normalizeRelativePath(file.path, "agent home file"));
  const directory = await mkdtemp(join(staging, "home-"));
  try {
    await chmod(directory, 0o700);
    for (const [index, file] of files.entries()) {
      const target = join(directory, paths[index]!);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, file.content, { mode: 0o600 });
      await chmod(target, 0o600);
    }
    await lease.upload(directory, lease.home, { signal });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
