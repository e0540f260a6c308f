import { setTimeout as sleep } from "node:timers/promises";
import { isProcessRunning } from "@outpost/plugin-utils";
import { processTree, signalAll } from "./process-tree.js";

/**
 * Stops a command's whole tree: SIGTERM to its group and every descendant, then SIGKILL to whatever is
 * left after `graceMs`. Resolves once nothing of the tree runs (or after a bounded wait).
 * Once the leader has been reaped its pid may be reused, so it is then reached only through its group,
 * whose id stays reserved while any member lives.
 */
export async function stopProcessTree(leader: number, graceMs: number, leaderRunning: boolean): Promise<void> {
  const groups = [leader];
  const seen = processTree(leaderRunning ? [leader] : [], groups);
  signalAll(seen, groups, "SIGTERM");
  if (await settled(seen, groups, graceMs)) return;
  // Look again: the tree may have grown, and orphans are remembered from the first walk.
  for (const pid of processTree(seen, groups)) seen.add(pid);
  signalAll(seen, groups, "SIGKILL");
  await settled(seen, groups, 5_000);
}

async function settled(pids: Set<number>, groups: number[], waitMs: number): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    const running = [...pids].some(isProcessRunning) || processTree([], groups).size > 0;
    if (!running) return true;
    if (Date.now() >= until) return false;
    await sleep(20);
  }
}
