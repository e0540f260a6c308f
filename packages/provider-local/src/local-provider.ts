import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { OutpostError, throwIfAborted } from "@outpost/core";
import type { SandboxContext, SandboxLease, SandboxProvider } from "@outpost/core";
import { LocalLease } from "./local-lease.js";
import { inheritedEnvironment, type LocalEnvironmentConfig } from "./inherited-environment.js";
import { leaseHome, type LocalHome } from "./private-home.js";

export interface LocalProviderConfig {
  /**
   * `"host"` (default, reference page 002): your home, so the CLI's own login, settings and native sessions
   * are found; Outpost never overwrites a file there. `"private"`: a fresh 0700 temporary home per lease,
   * removed on release. Or a path. SECURITY.md says what each choice exposes.
   */
  readonly home?: LocalHome;
  /**
   * Variables of this process the commands see. Default: an allow-list of what a CLI needs to run
   * (`PATH`, locale, terminal, proxies…); `{ inherit: "all" }` passes everything, secrets included.
   */
  readonly environment?: LocalEnvironmentConfig;
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
    throw new OutpostError(
      "configuration",
      `killGraceMs must be a non-negative number of milliseconds, got ${String(config.killGraceMs)}. Pass e.g. 500.`,
    );
  }
  // Checked now: a bad allow-list is a configuration error, not a failure of the first dispatch.
  inheritedEnvironment({}, config.environment);
  return {
    specificationVersion: "v1",
    name: LOCAL_PROVIDER_NAME,
    placement: "host",
    capabilities: { liveInput: true, fileTransfers: true },
    ...(config.variables === undefined ? {} : { variables: config.variables }),
    async acquire(context: SandboxContext): Promise<SandboxLease> {
      throwIfAborted(context.signal, "Acquiring a local lease");
      const root = resolve(context.directory);
      // The private home is made while the root is checked; a refused root removes it again.
      const [found, home] = await Promise.all([stat(root).catch(() => undefined), leaseHome(config.home ?? "host")]);
      if (!found?.isDirectory()) {
        await home.dispose();
        throw new OutpostError(
          "workspace",
          `Cannot expose ${JSON.stringify(context.directory)} as the lease root: it is not a directory. Create the worktree first.`,
          {
            details: { directory: context.directory },
          },
        );
      }
      const environment = {
        ...inheritedEnvironment(process.env, config.environment),
        HOME: home.path,
        ...config.variables,
        ...context.variables,
      };
      return new LocalLease({ root, home, environment, killGraceMs });
    },
  };
}
