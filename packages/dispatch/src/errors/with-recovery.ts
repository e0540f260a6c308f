import { OutpostError, ReplayDivergence } from "@outpost/core";
import type { DispatchRecovery } from "../dispatch-options.js";

/**
 * The dispatch's error with what was left behind (branch, worktree, commits, conversation) attached as
 * `details.recovery`, and the message telling where to find the work. Keeps the original code.
 */
export function withRecovery(error: unknown, recovery: DispatchRecovery): OutpostError {
  const original = OutpostError.isInstance(error)
    ? error
    : new OutpostError(
        "process",
        `The dispatch failed: ${error instanceof Error ? error.message : String(error)}. Check the sandbox provider and agent.`,
        { cause: error },
      );
  const where = `${recovery.branch ? `branch ${recovery.branch}` : "a detached HEAD"} in ${recovery.directory}`;
  const conversation = recovery.conversationId ? `, conversation ${recovery.conversationId}` : "";
  const rescued = recovery.recoveryLocation
    ? ` The remote sandbox's commits are rescued in ${recovery.recoveryLocation} (restore them with \`${recovery.restore ?? ""}\`).`
    : "";
  const message =
    `${original.message} Work is kept on ${where} (${recovery.commits.length} commit${recovery.commits.length === 1 ? "" : "s"}${conversation}); ` +
    `failed phase: ${recovery.phase}.${rescued}`;
  // A divergence stays a ReplayDivergence, so callers can branch on its kind.
  if (original instanceof ReplayDivergence) {
    const { kind, recorded, actual, pass } = original;
    return new ReplayDivergence({ kind, recorded, actual, pass, message }, { cause: original, details: { recovery } });
  }
  return new OutpostError(original.code, message, {
    // An abort keeps the signal's reason as cause; anything else keeps the original error.
    cause: original.code === "aborted" ? original.cause : original,
    details: { ...original.details, recovery },
  });
}
