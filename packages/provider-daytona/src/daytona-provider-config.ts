import type { CreateSandboxFromImageParams, CreateSandboxFromSnapshotParams } from "@daytonaio/sdk";

type Managed = "name" | "networkBlockAll" | "networkAllowList";

/** The SDK's `daytona.create` parameters (snapshot or image, resources, user, env, labels, auto-stop…). */
export type DaytonaCreateParameters = Omit<CreateSandboxFromSnapshotParams, Managed> | Omit<CreateSandboxFromImageParams, Managed>;

export interface DaytonaProviderConfig {
  /** Passed through to `daytona.create` (e.g. `{ snapshot: "my-snapshot" }` or `{ image: "node:22", resources: { cpu: 2 } }`). */
  readonly create?: DaytonaCreateParameters;
  /** Egress control (Daytona network settings): block everything, or allow only these CIDRs (comma-separated, at most 10). */
  readonly network?: { readonly blockAll?: boolean; readonly allowList?: string };
  /** Seconds `daytona.create` may take, start included (the SDK's default is 60). */
  readonly createTimeoutSeconds?: number;
  /** Added to every command of every lease. */
  readonly variables?: Readonly<Record<string, string>>;
  /** The repository directory in the sandbox; default: a folder of the lease's own, `/tmp/outpost-<sandbox>-<stamp>/workspace` (never the home). */
  readonly root?: string;
  /** Release stops the sandbox (kept, reusable by id or name) instead of deleting it. */
  readonly retain?: boolean;
  /** Reuse this existing sandbox (id or name, e.g. one kept by `retain`) instead of creating one; started if stopped. */
  readonly sandbox?: string;
  /** Credentials and endpoint; default DAYTONA_API_KEY, DAYTONA_API_URL and DAYTONA_TARGET (the SDK's own variables). */
  readonly apiKey?: string;
  readonly apiUrl?: string;
  readonly target?: string;
}

/** The SDK's client configuration: explicit options first, then the SDK's environment variables. */
export function daytonaCredentials(
  config: DaytonaProviderConfig,
  environment: NodeJS.ProcessEnv = process.env,
): { apiKey?: string; apiUrl?: string; target?: string } {
  const apiKey = config.apiKey ?? environment.DAYTONA_API_KEY;
  const apiUrl = config.apiUrl ?? environment.DAYTONA_API_URL;
  const target = config.target ?? environment.DAYTONA_TARGET;
  return { ...(apiKey ? { apiKey } : {}), ...(apiUrl ? { apiUrl } : {}), ...(target ? { target } : {}) };
}
