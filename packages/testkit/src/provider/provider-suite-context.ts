import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertSpecificationVersion, type SandboxContext, type SandboxLease, type SandboxProvider } from "@outpost/core";
import { unsupportedTitle } from "../shared/suite-options.js";
import type { SuiteRunner } from "../shared/suite-runner.js";

/** Optional lease capabilities the provider suite checks; each may be declared unsupported with a reason. */
export type ProviderCapability = "liveInput" | "fileTransfers" | "uploadBatch";

/** What `create` resolves: the provider under test, and how to clean it up after the suite. */
export interface ProviderUnderTest {
  readonly provider: SandboxProvider;
  readonly dispose?: () => Promise<void>;
}

/** One case's sandbox: a fresh lease on a fresh host workspace. */
export interface LeaseCase {
  readonly lease: SandboxLease;
  readonly provider: SandboxProvider;
  /** The host directory given to `acquire` as the worktree. */
  readonly workspace: string;
}

/** What every provider group receives: where to register cases and how to get a fresh lease. */
export interface ProviderSuiteContext {
  readonly runner: SuiteRunner;
  readonly unsupported: Readonly<Partial<Record<ProviderCapability, string>>>;
  /** The provider created for this suite (available once the suite's beforeAll ran). */
  provider(): SandboxProvider;
  /** Builds the acquire() context for a workspace directory. */
  context(workspace: string): Promise<SandboxContext>;
}

export interface CheckSettings {
  /** The case needs this capability: it becomes a named skip when declared unsupported. */
  readonly capability?: ProviderCapability;
  readonly timeoutMs?: number;
}

const DEFAULT_CASE_TIMEOUT_MS = 60_000;

/** The reason a capability is declared unsupported; uploadBatch is implied by fileTransfers. */
export function unsupportedReason(context: ProviderSuiteContext, capability: ProviderCapability | undefined): string | undefined {
  if (capability === undefined) return undefined;
  if (capability === "uploadBatch") return context.unsupported.uploadBatch ?? context.unsupported.fileTransfers;
  return context.unsupported[capability];
}

/** Registers one case that runs against a fresh lease, or its named skip when the capability is unsupported. */
export function leaseCheck(
  context: ProviderSuiteContext,
  title: string,
  body: (subject: LeaseCase) => Promise<void>,
  settings: CheckSettings = {},
): void {
  const reason = unsupportedReason(context, settings.capability);
  if (reason !== undefined) {
    context.runner.it.skip(unsupportedTitle(title, reason));
    return;
  }
  context.runner.it(title, () => withLease(context, body), settings.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS);
}

/** Acquires a fresh lease on a fresh workspace, runs `body`, and always releases and cleans up. */
export async function withLease<T>(context: ProviderSuiteContext, body: (subject: LeaseCase) => Promise<T>): Promise<T> {
  const workspace = await mkdtemp(join(tmpdir(), "outpost-kit-workspace-"));
  try {
    const provider = context.provider();
    assertSpecificationVersion(provider, "sandbox provider");
    const lease = await provider.acquire(await context.context(workspace));
    try {
      assertSpecificationVersion(lease, "sandbox lease");
      return await body({ lease, provider, workspace });
    } finally {
      await lease.release();
    }
  } finally {
    await rm(workspace, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A fresh host scratch directory for one case, removed after `body`. */
export async function withHostDirectory<T>(body: (directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), "outpost-kit-host-"));
  try {
    return await body(directory);
  } finally {
    await rm(directory, { recursive: true, force: true }).catch(() => undefined);
  }
}
