import { readFileSync } from "node:fs";

/** Where the kernel's pid allocation stood at one moment: the last pid handed out, and forks since boot. */
export interface PidCounter {
  readonly lastPid: number;
  readonly forks: number;
}

/** Reads the counter (Linux: `/proc/sys/kernel/ns_last_pid` and `/proc/stat`); undefined where it cannot. */
export function readPidCounter(): PidCounter | undefined {
  try {
    const lastPid = Number(readFileSync("/proc/sys/kernel/ns_last_pid", "utf8"));
    const forks = Number(/^processes (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
    return Number.isSafeInteger(lastPid) && Number.isSafeInteger(forks) ? { lastPid, forks } : undefined;
  } catch {
    return undefined;
  }
}

let pidMax: number | undefined;

/**
 * Which pids can belong to a process started after `since`: those above its last pid, as long as the
 * counter cannot have wrapped around since (it did when it went down, and may have after pid_max/2 forks).
 * Undefined means any pid can.
 */
export function pidsAfter(since: PidCounter | undefined): ((pid: number) => boolean) | undefined {
  const now = readPidCounter();
  if (since === undefined || now === undefined || now.lastPid < since.lastPid) return undefined;
  pidMax ??= Number(readFileSync("/proc/sys/kernel/pid_max", "utf8"));
  if (!(now.forks - since.forks < pidMax / 2)) return undefined;
  return (pid) => pid > since.lastPid;
}
