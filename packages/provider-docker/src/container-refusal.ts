import { OutpostError } from "@outpost/core";

/** Turns a non-zero status of a container script into an error carrying the script's own reason. */
export function containerRefusal(status: number, stderr: string, action: string): OutpostError {
  const reason = stderr.trim().split("\n").slice(-3).join(" ") || `exit status ${status}`;
  if (status >= 90 && status <= 99) {
    return new OutpostError("workspace", `Refused to ${action}: ${reason}. Use a path that exists and stays inside the tree.`, {
      details: { status, reason },
    });
  }
  return new OutpostError("workspace", `Could not ${action}: ${reason} (status ${status}). Check the path and that the lease user may write there; the image needs sh and tar.`, {
    details: { status, reason },
  });
}
