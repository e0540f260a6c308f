import { readFileSync, readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { isProcessRunning } from "@outpost/plugin-utils";
import { signalAll } from "./process-tree.js";
import { pidsAfter, type PidCounter } from "./pid-counter.js";

/** The variable every command of a lease carries, so release() can find what escaped its process groups. */
export const LEASE_MARK_VARIABLE = "OUTPOST_LEASE_MARK";

/**
 * Pids of running processes whose initial environment carries `mark`: children of the lease's commands
 * that moved to a new session (setsid, daemons) and outlived their parent. A process that re-executes
 * itself with a scrubbed environment is not found; the documented limit of a host placement. With `since`
 * (the pid counter when the lease began), only processes started after it are read.
 */
export function markedProcesses(mark: string, since?: PidCounter): number[] {
  const needle = Buffer.from(`\0${LEASE_MARK_VARIABLE}=${mark}\0`);
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const candidate = pidsAfter(since) ?? (() => true);
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid || !candidate(Number(name))) continue;
    try {
      const environment = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${name}/environ`), Buffer.from([0])]);
      if (environment.includes(needle)) found.push(Number(name));
    } catch {
      // Ended meanwhile, or not ours to read.
    }
  }
  return found;
}

/** SIGKILLs every process marked for this lease, again until none is left (new ones may fork meanwhile). */
export async function killMarkedProcesses(mark: string, since?: PidCounter): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = markedProcesses(mark, since).filter(isProcessRunning);
    if (pids.length === 0) return;
    signalAll(pids, [], "SIGKILL");
    await sleep(20);
  }
}
