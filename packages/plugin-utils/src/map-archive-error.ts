import { OutpostError } from "@outpost/core";

/**
 * Wraps a failure of unpacking a sandbox's tar stream. Host file-system errors (they carry a syscall) are
 * the destination's problem; anything else is tar-stream refusing the bytes — the archive arrived cut
 * short or corrupt — which points at the provider's connection or the sandbox's tar. `check` names what
 * to look at for that (e.g. "the Docker engine (docker info)").
 */
export function mapArchiveError(error: unknown, action: string, check: string): OutpostError {
  if (OutpostError.isInstance(error)) return error;
  const failure = (typeof error === "object" && error !== null ? error : {}) as {
    message?: string;
    code?: string;
    syscall?: string;
    path?: string;
  };
  const reason = failure.message ?? String(error);
  if (typeof failure.syscall === "string") {
    return new OutpostError(
      "workspace",
      `Could not ${action}: writing the host copy failed (${reason}). Check the host destination: free space, permissions, and that nothing else writes there.`,
      {
        cause: error,
        details: { action, reason, code: failure.code },
      },
    );
  }
  return new OutpostError(
    "provider",
    `Could not ${action}: the archive streamed from the sandbox was truncated or corrupt (${reason}). ` +
      `Nothing was written to the destination; retry, and if it persists check ${check} and that the sandbox's tar works.`,
    { cause: error, details: { action, reason, archive: "truncated-or-corrupt" } },
  );
}
