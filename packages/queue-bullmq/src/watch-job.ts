import { OutpostError } from "@outpost/core";
import type { DispatchQueue } from "./dispatch-queue.js";
import { jobLog, jobStatus, type JobStatus } from "./queue-status.js";

export type WatchUpdate = { readonly type: "log"; readonly line: string } | { readonly type: "state"; readonly status: JobStatus };

/**
 * Follows one job until it completes or fails: its journal lines as the worker sends them, and each change of
 * state or phase. Polls (jobs may run on any machine; polling needs no extra connection per watcher).
 * Resolves with the final status; code `configuration` when the queue has no such job.
 */
export async function watchJob(
  queue: DispatchQueue,
  id: string,
  onUpdate: (update: WatchUpdate) => void,
  options: { readonly intervalMs?: number; readonly signal?: AbortSignal } = {},
): Promise<JobStatus> {
  let seenLines = 0;
  let lastKey = "";
  for (;;) {
    const status = await jobStatus(queue, id);
    if (status === undefined)
      throw new OutpostError(
        "configuration",
        `Queue ${queue.name} has no job ${JSON.stringify(id)}. Run \`outpost queue status\` to see its jobs.`,
        {
          details: { queue: queue.name, job: id },
        },
      );
    const lines = await jobLog(queue, id, seenLines);
    for (const line of lines) onUpdate({ type: "log", line });
    seenLines += lines.length;
    const key = `${status.state}:${status.progress?.phase ?? ""}:${status.progress?.fence ?? ""}`;
    if (key !== lastKey) onUpdate({ type: "state", status });
    lastKey = key;
    if (status.state === "completed" || status.state === "failed") return status;
    if (options.signal?.aborted) return status;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1_000));
  }
}
