import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { normalizeRelativePath, type AgentHomeFile, type SandboxLease } from "@outpost/core";

/**
 * Writes the agent's settings files into the lease home: staged on the host as 0600 files in 0700
 * directories, then uploaded (uploads keep modes). A path leaving the home is refused (code `workspace`).
 */
export async function writeHomeFiles(
  lease: SandboxLease,
  files: readonly AgentHomeFile[],
  staging: string,
  signal?: AbortSignal,
): Promise<void> {
  if (files.length === 0) return;
  const paths = files.map((file) => normalizeRelativePath(file.path, "agent home file"));
  const directory = await mkdtemp(join(staging, "home-"));
  try {
    await chmod(directory, 0o700);
    // Independent files are written at once; a path given twice keeps its last content, as before.
    const contents = new Map(files.map((file, index) => [join(directory, paths[index]!), file.content]));
    await Promise.all(
      [...new Set([...contents.keys()].map((target) => dirname(target)))].map((parent) => mkdir(parent, { recursive: true, mode: 0o700 })),
    );
    await Promise.all(
      [...contents].map(async ([target, content]) => {
        await writeFile(target, content, { mode: 0o600 });
        await chmod(target, 0o600);
      }),
    );
    await lease.upload(directory, lease.home, { signal });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
