import { readFileSync, readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { pidsAfter, type PidCounter } from "./pid-counter.js";
import { isProcessRunning } from "./process-running.js";

/** A variable every process of one sandbox carries (`name=value` in its initial environment). */
export interface ProcessMark {
  readonly name: string;
  readonly value: string;
  /** The pid counter before the first process: only processes started after it are read. */
  readonly since?: PidCounter;
}

/**
 * Pids of running processes (this one excepted) whose initial environment carries `mark`: also those that
 * moved to a new session (setsid, daemons) and outlived their parent. A process that re-executes itself
 * with a scrubbed environment is not found. Empty where /proc cannot be read.
 */
export function markedProcesses(mark: ProcessMark): number[] {
  const needle = Buffer.from(`\0${mark.name}=${mark.value}\0`);
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const candidate = pidsAfter(mark.since) ?? (() => true);
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

/** SIGKILLs every process carrying `mark`, again until none is left (new ones may fork meanwhile). */
export async function killMarkedProcesses(mark: ProcessMark): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = markedProcesses(mark).filter(isProcessRunning);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
    await sleep(20);
  }
}
