import { readdirSync, readFileSync } from "node:fs";

interface ProcessStat {
  readonly pid: number;
  readonly parent: number;
  readonly group: number;
}

/**
 * Pids of every running descendant of `roots` and every member of `groups`, found by one walk of /proc.
 * This catches children that escaped to another group or session (setsid) while their parent is alive.
 * Where /proc is unavailable only `roots` are returned and the group signal has to do.
 */
export function processTree(roots: Iterable<number>, groups: readonly number[]): Set<number> {
  const found = new Set<number>(roots);
  const children = new Map<number, number[]>();
  for (const stat of runningProcesses()) {
    if (groups.includes(stat.group)) found.add(stat.pid);
    const siblings = children.get(stat.parent) ?? [];
    siblings.push(stat.pid);
    children.set(stat.parent, siblings);
  }
  const queue = [...found];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (!found.has(child)) {
        found.add(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** Sends `signal` to each process group and each pid, ignoring those already gone. */
export function signalAll(pids: Iterable<number>, groups: Iterable<number>, signal: NodeJS.Signals): void {
  for (const group of groups) trySignal(-group, signal);
  for (const pid of pids) trySignal(pid, signal);
}

function runningProcesses(): ProcessStat[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const stats: ProcessStat[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name may contain spaces and parentheses: the fields start after the last ")".
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z") continue;
      stats.push({ pid: Number(name), parent: Number(fields[1]), group: Number(fields[2]) });
    } catch {
      // The process ended while we were looking.
    }
  }
  return stats;
}

function trySignal(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // Already gone (ESRCH) or not ours (EPERM): nothing left to stop.
  }
}
