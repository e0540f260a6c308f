import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxLease, SandboxProvider } from "@outpost/core";

/** A scratch git repository to use as a lease root; `name` is its last path segment. */
export async function createWorkspace(parent: string, name: string): Promise<string> {
  const directory = join(parent, name);
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, "README.md"), "# scratch workspace\n");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: directory, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("-c", "user.name=outpost", "-c", "user.email=outpost@example.invalid", "add", "README.md");
  git("-c", "user.name=outpost", "-c", "user.email=outpost@example.invalid", "commit", "-q", "-m", "init");
  return directory;
}

export interface AgentSandbox {
  /** Host scratch directory holding workspaces and staging. */
  readonly scratch: string;
  /** Acquires a lease on a fresh workspace named `name` (different names give different paths). */
  lease(name: string, provider?: SandboxProvider): Promise<SandboxLease>;
  dispose(): Promise<void>;
}

/** Leases from `provider` (or the one given per lease) on scratch workspaces, all released on dispose. */
export async function agentSandbox(provider: SandboxProvider): Promise<AgentSandbox> {
  const scratch = await mkdtemp(join(tmpdir(), "outpost-e2e-"));
  const leases: SandboxLease[] = [];
  return {
    scratch,
    async lease(name, from = provider) {
      const directory = await createWorkspace(scratch, name);
      const lease = await from.acquire({ repository: directory, directory, gitDirectories: [], variables: {} });
      leases.push(lease);
      return lease;
    },
    async dispose() {
      await Promise.allSettled(leases.map((lease) => lease.release()));
      await rm(scratch, { recursive: true, force: true });
    },
  };
}
