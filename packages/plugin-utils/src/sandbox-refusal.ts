import { OutpostError, tailLines } from "@outpost/core";

// GNU tar's words when a file changes size or contents while it is archived (it exits 1 or 2).
const CHANGED_WHILE_READ = /file changed as we read it|file shrank by|file removed before we read it/i;

/** Turns a non-zero status of a sandbox script into an error carrying the script's own reason. */
export function sandboxRefusal(status: number, stderr: string, action: string): OutpostError {
  // Whole lines, and a bounded message even when one of them is a megabyte long.
  const reason = tailLines(stderr, 600).split("\n").slice(-3).join(" ") || `exit status ${status}`;
  if (status >= 90 && status <= 99) {
    return new OutpostError("workspace", `Refused to ${action}: ${reason}. Use a path that exists and stays inside the tree.`, {
      details: { status, reason },
    });
  }
  if (CHANGED_WHILE_READ.test(stderr)) {
    return new OutpostError(
      "workspace",
      `Could not ${action}: a file changed while tar read it (${reason}; status ${status}). ` +
        `Something in the sandbox is still writing there: wait until it finished (stop the agent or process first), then retry.`,
      { details: { status, reason, changedWhileRead: true } },
    );
  }
  return new OutpostError(
    "workspace",
    `Could not ${action}: ${reason} (status ${status}). Check the path and that the lease user may write there; the image needs sh and tar.`,
    {
      details: { status, reason },
    },
  );
}
