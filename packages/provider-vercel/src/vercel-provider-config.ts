import type { NetworkPolicy, Sandbox } from "@vercel/sandbox";

/** The SDK's `Sandbox.create` parameters (image or runtime, resources, timeout, ports, region, tags…). */
export type VercelCreateParameters = Omit<
  NonNullable<Parameters<typeof Sandbox.create>[0]>,
  "token" | "teamId" | "projectId" | "fetch" | "signal" | "name"
>;

export interface VercelProviderConfig {
  /** Passed through to `Sandbox.create` (e.g. `{ runtime: "node24", resources: { vcpus: 4 }, timeout: 3_600_000 }`). */
  readonly create?: VercelCreateParameters;
  /** Egress control: `"allow-all"`, `"deny-all"` or `{ allow: [...domains] }` (Vercel network policy). */
  readonly networkPolicy?: NetworkPolicy;
  /** Added to every command of every lease. */
  readonly variables?: Readonly<Record<string, string>>;
  /** The repository directory in the sandbox; default: the sandbox's working directory (`/vercel/sandbox`). */
  readonly root?: string;
  /** Release stops the sandbox (persistent, resumable by name) instead of deleting it. */
  readonly retain?: boolean;
  /** Reuse this existing sandbox (by name, e.g. one kept by `retain`) instead of creating one; it is resumed if stopped. */
  readonly sandbox?: string;
  /** Credentials; default VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID, else the SDK's VERCEL_OIDC_TOKEN. */
  readonly token?: string;
  readonly teamId?: string;
  readonly projectId?: string;
  /** The fetch the SDK uses (a proxy, or the offline API double's `fetch`). */
  readonly fetch?: typeof globalThis.fetch;
  /** The Sandbox API's base URL instead of https://vercel.com/api (a gateway, the offline double); default OUTPOST_VERCEL_API_URL. */
  readonly apiUrl?: string;
}

/** Credentials for the SDK: all three from the options or the environment, or none (the SDK then reads VERCEL_OIDC_TOKEN). */
export function vercelCredentials(
  config: VercelProviderConfig,
  environment: NodeJS.ProcessEnv = process.env,
): { token: string; teamId: string; projectId: string } | undefined {
  const token = config.token ?? environment.VERCEL_TOKEN;
  const teamId = config.teamId ?? environment.VERCEL_TEAM_ID;
  const projectId = config.projectId ?? environment.VERCEL_PROJECT_ID;
  if (token === undefined || teamId === undefined || projectId === undefined) return undefined;
  return { token, teamId, projectId };
}
