import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConversationContext, SandboxLease } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";

/** A real local-provider lease on a fresh workspace (named `name`) with a private home. */
export interface TestSandbox {
  readonly lease: SandboxLease;
  readonly workspace: string;
  /** Host folder for captured conversations, staging and the workspace. */
  readonly base: string;
  context(home?: string): ConversationContext;
  dispose(): Promise<void>;
}

export async function localSandbox(name = "repo", variables: Record<string, string> = {}): Promise<TestSandbox> {
  const base = await mkdtemp(join(tmpdir(), "outpost-conversations-"));
  const workspace = join(base, name);
  await mkdir(workspace, { recursive: true });
  const lease = await localProvider({ home: "private" }).acquire({
    repository: workspace,
    directory: workspace,
    gitDirectories: [],
    variables,
  });
  return {
    lease,
    workspace,
    base,
    context: (home?: string) => ({ repository: workspace, sandbox: lease, staging: join(base, "staging"), ...(home ? { home } : {}) }),
    async dispose() {
      await lease.release();
      await rm(base, { recursive: true, force: true });
    },
  };
}
