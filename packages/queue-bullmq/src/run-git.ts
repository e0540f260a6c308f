import { dirname } from "node:path";
import { OutpostError } from "@outpost/core";
import { hardenedGit } from "@outpost/dispatch";

// The engine's hardened host git (no hook, fsmonitor, helper or external program from any repository
// config runs: an agent may have written the cache's config). Talking to the job's remote is the one
// thing a worker adds: https and ssh transports, with the worker's own plain ssh, never the repository's.
const REMOTE_CONFIG = { "protocol.https.allow": "always", "protocol.ssh.allow": "always" };
const REMOTE_VARIABLES = { GIT_SSH_COMMAND: "ssh" };

/** Runs git; a failure is code `workspace`, classified `unavailable` when the remote could not be reached. */
export async function runGit(
  directory: string | undefined,
  args: readonly string[],
  options: { remote?: boolean; signal?: AbortSignal } = {},
): Promise<string> {
  // A clone runs beside its destination, which does not exist yet.
  const where = directory ?? dirname(String(args[args.length - 1]));
  const result = await hardenedGit(where, args, {
    ...(options.remote ? { config: REMOTE_CONFIG, variables: REMOTE_VARIABLES } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.status === 0) return result.stdout.trim();
  const detail = result.stderr.trim().slice(-1_000) || `exit ${result.status}`;
  throw new OutpostError("workspace", `git ${args[0]} failed: ${detail}. Check that the worker can reach and write the remote.`, {
    details: { args: [...args], status: result.status, ...(options.remote ? { classification: "unavailable" } : {}) },
  });
}
