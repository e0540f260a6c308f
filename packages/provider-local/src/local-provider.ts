import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { OutpostError, throwIfAborted } from "@outpost/core";
import type { SandboxContext, SandboxLease, SandboxProvider } from "@outpost/core";
import { LocalLease } from "./local-lease.js";
import { leaseHome, type LocalHome } from "./private-home.js";

export interface LocalProviderConfig {
  /** `"private"` (default): a fresh 0700 temporary home per lease, removed on release; `"host"`: your home; or a path. */
  readonly home?: LocalHome;
  /** Variables added to every command of every lease. */
  readonly variables?: Readonly<Record<string, string>>;
  /** Milliseconds between SIGTERM and SIGKILL when a command's tree is stopped. Default 500. */
  readonly killGraceMs?: number;
}

export const LOCAL_PROVIDER_NAME = "local";

/** A provider whose leases run commands as host processes in the given worktree (placement `host`). */
export function localProvider(config: LocalProviderConfig = {}): SandboxProvider {
  const killGraceMs = config.killGraceMs ?? 500;
  if (!Number.isFinite(killGraceMs) || killGraceMs < 0) {
    throw new OutpostError("configuration", `killGraceMs must be a non-negative number of milliseconds, got ${String(config.killGraceMs)}. Pass e.g. 500.`);
  }
  return {
    specificationVersion: "v1",
    name: LOCAL_PROVIDER_NAME,
    placement: "host",
    ...(config.variables === undefined ? {} : { variables: config.variables }),
    async acquire(context: SandboxContext): Promise<SandboxLease> {
      throwIfAborted(context.signal, "Acquiring a local lease");
      const root = resolve(context.directory);
      const found = await stat(root).catch(() => undefined);
      if (!found?.isDirectory()) {
        throw new OutpostError("workspace", `Cannot expose ${JSON.stringify(context.directory)} as the lease root: it is not a directory. Create the worktree first.`, {
          details: { directory: context.directory },
        });
      }
      const home = await leaseHome(config.home ?? "private");
      const environment = { ...hostEnvironment(), HOME: home.path, ...config.variables, ...context.variables };
      return new LocalLease({ root, home, environment, killGraceMs });
    },
  };
}

function hostEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) environment[name] = value;
  return environment;
}
