import type { JobStatus, QueueStatus } from "@outpost/queue-bullmq";
import type { ProgramIo } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { guardedQueueCommand, queueName, redisUrl, type QueueFlags } from "./queue-connection.js";

/** `outpost queue status`: counts by state, running jobs with their phase and worker, the last failures. */
export function queueStatusCommand(flags: QueueFlags, io: ProgramIo): Promise<number> {
  return guardedQueueCommand(flags, io, async () => {
    const { openDispatchQueue, queueStatus } = await import("@outpost/queue-bullmq");
    const name = queueName(flags);
    const queue = openDispatchQueue({ url: redisUrl(flags), ...(name ? { name } : {}) });
    try {
      const status = await queueStatus(queue);
      io.stdout.write(flags.json ? `${JSON.stringify({ type: "queue", ...status })}\n` : describeQueue(status));
    } finally {
      await queue.close();
    }
  });
}

/** `outpost queue watch <job>`: the job's journal and state changes until it ends; exits as the job did. */
export function queueWatchCommand(id: string, flags: QueueFlags & { intervalMs?: number }, io: ProgramIo): Promise<number> {
  return guardedQueueCommand(flags, io, async () => {
    const { openDispatchQueue, watchJob } = await import("@outpost/queue-bullmq");
    const name = queueName(flags);
    const queue = openDispatchQueue({ url: redisUrl(flags), ...(name ? { name } : {}) });
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    try {
      const final = await watchJob(
        queue,
        id,
        (update) => {
          if (flags.json) io.stdout.write(`${JSON.stringify(update.type === "log" ? update : { type: "state", ...update.status })}\n`);
          else io.stdout.write(update.type === "log" ? `  ${update.line}\n` : `${describeJob(update.status)}\n`);
        },
        { intervalMs: flags.intervalMs ?? 1_000, signal: stop.signal },
      );
      if (final.state === "completed") return EXIT_CODES.success;
      if (final.state === "failed") return exitCodeFor(failureCode(final.failedReason));
      return EXIT_CODES.aborted;
    } finally {
      process.removeListener("SIGINT", onSignal);
      await queue.close();
    }
  });
}

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
function failureCode(reason: string | undefined): Parameters<typeof exitCodeFor>[0] {
  const code = /^\[([a-z_-]+)\]/.exec(reason ?? "")?.[1];
  return code as Parameters<typeof exitCodeFor>[0];
}
