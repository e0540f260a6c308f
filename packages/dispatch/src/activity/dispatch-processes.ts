import { readdir, readFile } from "node:fs/promises";
import { DISPATCH_ID_VARIABLE } from "./activity-record.js";

/** A host process that carries a dispatch's id in its environment. */
export interface DispatchProcess {
  readonly pid: number;
  readonly processGroup: number;
}

/**
 * The processes of a dispatch on this host (its agent, the agent's children, also inside containers
 * when visible), found by the variable every agent process inherits. Works after the runner died,
 * whatever process group or session the agent's children moved to.
 */
export async function findDispatchProcesses(dispatchId: string): Promise<DispatchProcess[]> {
  const needle = Buffer.from(`\0${DISPATCH_ID_VARIABLE}=${dispatchId}\0`);
  const names = await readdir("/proc").catch(() => [] as string[]);
  const found: DispatchProcess[] = [];
  await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name) => {
        const environment = await readFile(`/proc/${name}/environ`).catch(() => undefined);
        if (!environment || !Buffer.concat([Buffer.from([0]), environment]).includes(needle)) return;
        const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => undefined);
        const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (!fields || fields[0] === "Z") return;
        found.push({ pid: Number(name), processGroup: Number(fields[2]) });
      }),
  );
  return found;
}

/** Kills every process of a dispatch (and their process groups); returns the pids that were signalled. */
export async function stopDispatchProcesses(dispatchId: string): Promise<number[]> {
  const processes = await findDispatchProcesses(dispatchId);
  for (const { pid, processGroup } of processes) {
    // A group led by one of them is the agent's tree (the provider starts the agent as a group leader).
    if (processes.some((other) => other.pid === processGroup)) {
      try {
        process.kill(-processGroup, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  return processes.map((entry) => entry.pid);
}
