import type { ActivityRecord } from "../activity/activity-record.js";
import { currentProcess, liveness } from "@outpost/plugin-utils";

/**
 * - running: its runner lives (never touched by a clean);
 * - dead: its runner is gone while the record says running (a crash, a kill -9, a lost machine);
 * - kept: it ended (failed, or finished with its worktree kept) and left work behind;
 * - unknown: its runner is on another machine or in a namespace not visible from here (never touched).
 */
export type DispatchStatus = "running" | "dead" | "kept" | "unknown";

export function dispatchStatus(record: ActivityRecord): DispatchStatus {
  if (record.state !== "running") return "kept";
  const runner = record.runner ?? (record.pid > 0 ? { pid: record.pid, host: currentProcess().host } : undefined);
  if (!runner) return "dead";
  const state = liveness(runner);
  return state === "alive" ? "running" : state;
}
