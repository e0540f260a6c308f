import { isAbsolute, posix } from "node:path";
import { OutpostError, throwIfAborted } from "@outpost/core";
import type { SandboxContext, SandboxLease, SandboxProvider } from "@outpost/core";
import { Daytona, type Sandbox } from "@daytonaio/sdk";
import { isPlainEmptyDirectory, OperationGuard } from "@outpost/plugin-utils";
import { daytonaCredentials, type DaytonaProviderConfig } from "./daytona-provider-config.js";
import { DaytonaLease } from "./daytona-lease.js";
import { mapDaytonaError } from "./map-daytona-error.js";
import { sessionName } from "./session-pool.js";
import { withRetry } from "./with-retry.js";

/** Capabilities every Daytona lease has. */
export const DAYTONA_CAPABILITIES = Object.freeze({ liveInput: true, fileTransfers: true, uploadBatch: true });

/** A SandboxProvider that runs each lease in its own Daytona sandbox through @daytonaio/sdk. */
export function daytonaProvider(config: DaytonaProviderConfig = {}): SandboxProvider {
  return {
    specificationVersion: "v1",
    name: "daytona",
    placement: "remote",
    capabilities: { liveInput: DAYTONA_CAPABILITIES.liveInput, fileTransfers: DAYTONA_CAPABILITIES.fileTransfers },
    ...(config.variables === undefined ? {} : { variables: config.variables }),
    acquire: (context) => acquire(config, context),
  };
}

async function acquire(config: DaytonaProviderConfig, context: SandboxContext): Promise<SandboxLease> {
  throwIfAborted(context.signal, "Acquiring a Daytona lease");
  if (typeof context.directory !== "string" || !isAbsolute(context.directory)) {
    throw new OutpostError(
      "configuration",
      `The sandbox context directory ${JSON.stringify(context.directory)} is not absolute. Pass an absolute host path.`,
    );
  }
  const guard = new OperationGuard({ signal: context.signal }, "Acquiring a Daytona lease");
  let sandbox: Sandbox | undefined;
  const created = config.sandbox === undefined;
  try {
    sandbox = await open(config, guard.signal);
    guard.check();
    const ready = sandbox;
    // The lease's own folders, outside the home: the home (getUserHomeDir) is the image's WORKDIR or the
    // user's home (the SDK's getWorkDir documents it), and a root there would carry the agent's credentials,
    // settings and bootstrapped CLI into the worktree on every sync.
    const base = posix.join("/tmp", `outpost-${sandbox.id}-${Date.now().toString(36)}`);
    const scratch = posix.join(base, "scratch");
    const root = config.root ?? posix.join(base, "workspace");
    const session = sessionName();
    // One round of independent requests, no process: the file API makes the directories (the daemon's
    // MkdirAll) while the session opens.
    const [homeDir, opened, ...made] = await Promise.allSettled([
      withRetry(() => ready.getUserHomeDir(), "learn the home of the Daytona sandbox", guard.signal),
      withRetry(() => ready.process.createSession(session), "open a Daytona process session", guard.signal),
      withRetry(() => ready.fs.createFolder(scratch, "700"), "prepare the Daytona sandbox", guard.signal),
      withRetry(() => ready.fs.createFolder(root, "755"), "prepare the Daytona sandbox", guard.signal).catch(
        unwritableRoot(sandbox.id, root),
      ),
    ]);
    const failed = [homeDir, opened, ...made].find((outcome) => outcome.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    // All fulfilled here; the check only narrows the type.
    const home = (homeDir.status === "fulfilled" ? homeDir.value : undefined) ?? `/home/${sandbox.user || "daytona"}`;
    const variables = { ...config.variables, ...context.variables, HOME: home };
    const lease = new DaytonaLease({ sandbox, session, root, home, scratch, variables, retain: config.retain === true });
    // Remote placement: root starts as a copy of the worktree (links kept, nothing outside it followed).
    // The engine hands an empty one (the repository follows as a bundle): root exists already.
    if (!(await isPlainEmptyDirectory(context.directory))) await lease.upload(context.directory, root, { signal: guard.signal });
    guard.check();
    return lease;
  } catch (error) {
    if (sandbox !== undefined && created) await sandbox.delete().catch(() => undefined);
    throw guard.error ?? mapDaytonaError(error, "acquire a Daytona sandbox");
  } finally {
    guard.dispose();
  }
}

/** The daemon answers 400 when MkdirAll fails: the configured root is not writable. Other failures pass as they are. */
function unwritableRoot(sandboxId: string, root: string): (error: unknown) => never {
  return (error) => {
    const cause = (error as { cause?: unknown } | null | undefined)?.cause ?? error;
    if ((cause as { statusCode?: unknown } | null | undefined)?.statusCode !== 400) throw error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new OutpostError(
      "provider",
      `Could not prepare the Daytona sandbox ${sandboxId}: creating ${root} failed (${reason}). Choose a writable root.`,
      { details: { root }, cause },
    );
  };
}

/** A new sandbox from the create parameters, or the named existing one (started when stopped). */
async function open(config: DaytonaProviderConfig, signal: AbortSignal): Promise<Sandbox> {
  // Polling instead of the event socket: a provider must not keep a socket (and the process) alive.
  const daytona = new Daytona({ ...daytonaCredentials(config), useDeprecatedPolling: true });
  if (config.sandbox !== undefined) {
    const name = config.sandbox;
    const sandbox = await withRetry(() => daytona.get(name), `reuse the Daytona sandbox ${JSON.stringify(name)}`, signal);
    if (sandbox.state !== "started") await sandbox.start(config.createTimeoutSeconds ?? 60);
    return sandbox;
  }
  const parameters = {
    ...config.create,
    labels: { ...config.create?.labels, "outpost.lease": "true" },
    ...(config.network?.blockAll === undefined ? {} : { networkBlockAll: config.network.blockAll }),
    ...(config.network?.allowList === undefined ? {} : { networkAllowList: config.network.allowList }),
  };
  // Retried on 5xx and 429 like the Vercel SDK does: a failed create leaves no sandbox to pay for.
  return withRetry(() => daytona.create(parameters, { timeout: config.createTimeoutSeconds ?? 60 }), "create a Daytona sandbox", signal);
}
