import { OUTPOST_ERROR_CODES, OutpostError, type OutpostErrorCode, type PluginCommand } from "@outpost/core";
import { queueStatus, type JobStatus, type QueueStatus } from "../queue-status.js";
import { watchJob } from "../watch-job.js";
import { QUEUE_OPTIONS, withQueue } from "./queue-flags.js";

/** `outpost queue status`: counts by state, running jobs with their phase and worker, the last failures. */
export const queueStatusCommand: PluginCommand = {
  path: ["queue", "status"],
  description: "Job counts by state, running jobs with their phase and worker, the last failures.",
  options: QUEUE_OPTIONS,
  run: (input, host) =>
    withQueue(input, async (queue) => {
      const status = await queueStatus(queue);
      host.stdout.write(input.options.json === true ? `${JSON.stringify({ type: "queue", ...status })}\n` : describeQueue(status));
    }),
};

/** `outpost queue watch <job>`: the job's journal and state changes until it ends; fails as the job did. */
export const queueWatchCommand: PluginCommand = {
  path: ["queue", "watch"],
  description: "Follow one job: its journal and state until it ends; exits as the job did.",
  arguments: [{ name: "job", description: "the job id (enqueueDispatch returns it)", required: true }],
  options: QUEUE_OPTIONS,
  run: (input, host) =>
    withQueue(input, async (queue) => {
      const id = input.arguments[0]!;
      const json = input.options.json === true;
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once("SIGINT", onSignal);
      try {
        const final = await watchJob(
          queue,
          id,
          (update) => {
            if (json) host.stdout.write(`${JSON.stringify(update.type === "log" ? update : { type: "state", ...update.status })}\n`);
            else host.stdout.write(update.type === "log" ? `  ${update.line}\n` : `${describeJob(update.status)}\n`);
          },
          { intervalMs: 1_000, signal: stop.signal },
        );
        if (final.state === "completed") return;
        if (final.state === "failed")
          throw new OutpostError(failureCode(final.failedReason), `Job ${id} failed: ${final.failedReason ?? "no reason recorded"}`, {
            details: { job: id },
          });
        throw new OutpostError("aborted", `Stopped watching job ${id} (${final.state}).`, { details: { job: id } });
      } finally {
        process.removeListener("SIGINT", onSignal);
      }
    }),
};

function describeQueue(status: QueueStatus): string {
  const counts = Object.entries(status.counts)
    .map(([state, count]) => `${state} ${count}`)
    .join(", ");
  const lines = [`Queue ${status.queue}: ${counts}`];
  if (status.active.length > 0) lines.push("Running:", ...status.active.map((job) => `  ${describeJob(job)}`));
  if (status.failed.length > 0) lines.push("Last failures:", ...status.failed.map((job) => `  ${describeJob(job)}`));
  return `${lines.join("\n")}\n`;
}

function describeJob(job: JobStatus): string {
  const progress = job.progress
    ? ` ${job.progress.phase} on ${job.progress.worker} (fence ${job.progress.fence}, ${job.progress.events} events)`
    : "";
  const result = job.result ? `: ${job.result.commits.length} commit(s) on ${job.result.branch}, by ${job.result.worker}` : "";
  const failure = job.failedReason ? `: ${job.failedReason}` : "";
  return `${job.id} [${job.state}]${job.state === "completed" ? result : job.state === "failed" ? failure : progress}`;
}

/** A failed job's reason starts with its code in brackets when the worker failed it at once (`[configuration] …`). */
function failureCode(reason: string | undefined): OutpostErrorCode {
  const code = /^\[([a-z_-]+)\]/.exec(reason ?? "")?.[1];
  return OUTPOST_ERROR_CODES.find((known) => known === code) ?? "process";
}
