import { readFileSync } from "node:fs";

/**
 * Rule: a pid on this machine runs while the kernel lists it and it is not a zombie (exited, not yet
 * collected by its parent). Where /proc is missing, signal 0 decides: it succeeds, or fails with EPERM
 * (the process exists but belongs to someone else). A pid alone cannot tell a reused pid from the
 * original process; to judge an owner recorded earlier, keep its `ProcessIdentity` and ask `liveness`.
 */
export function isProcessRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    return signalZero(pid);
  }
  // The command name (field 2) may hold spaces and parentheses: the state follows its closing one.
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

function signalZero(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
