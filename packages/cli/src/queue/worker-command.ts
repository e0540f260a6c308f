import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { OutpostError, type AgentFactoryOptions, type PluginDescriptor } from "@outpost/core";
import type { DispatchWorkerEvent } from "@outpost/queue-bullmq";
import { agentOptions } from "../agents/load-agent.js";
import type { ProgramIo } from "../program.js";
import { findPlugins } from "../plugins/find-plugins.js";
import { loadDescriptor } from "../plugins/load-descriptor.js";
import { guardedQueueCommand, queueName, redisUrl, type QueueFlags } from "./queue-connection.js";

export interface WorkerFlags extends QueueFlags {
  /** Folder every worker shares (a network file system) for results, journals and conversations. */
  readonly results?: string;
  readonly cache?: string;
  readonly concurrency: number;
  readonly name?: string;
}

/**
 * `outpost worker`: runs queued dispatches with every agent and provider installed here, each agent with this
 * machine's keys and endpoint (OUTPOST_<AGENT>_BASE_URL, OUTPOST_API_KEY…), until SIGINT or SIGTERM; the
 * first signal lets running jobs finish, a second abandons them to other workers.
 */
export function workerCommand(flags: WorkerFlags, io: ProgramIo): Promise<number> {
  return guardedQueueCommand(flags, io, async () => {
    const resultsDirectory = flags.results ?? process.env.OUTPOST_QUEUE_RESULTS;
    if (resultsDirectory === undefined)
      throw new OutpostError(
        "configuration",
        "outpost worker needs --results <dir> (or OUTPOST_QUEUE_RESULTS): the folder all workers share for results and conversations.",
      );
    const { openDispatchQueue, runDispatchWorker } = await import("@outpost/queue-bullmq");
    const { fsTransport } = await import("@outpost/transport-fs");
    const plugins: PluginDescriptor[] = [];
    const agentDefaults: Record<string, AgentFactoryOptions> = {};
    for (const kind of ["agent", "provider"] as const) {
      for (const plugin of findPlugins(kind)) {
        const descriptor = await loadDescriptor(plugin);
        plugins.push(descriptor);
        if (descriptor.kind === "agent") agentDefaults[descriptor.name] = agentOptions(descriptor, { name: descriptor.name });
      }
    }
    const name = queueName(flags);
    const queue = openDispatchQueue({ url: redisUrl(flags), ...(name ? { name } : {}) });
    const say = (event: DispatchWorkerEvent | { type: "ready" | "stopping"; worker: string; queue?: string }) =>
      io.stdout.write(flags.json ? `${JSON.stringify(event)}\n` : `${describeEvent(event)}\n`);
    try {
      const worker = await runDispatchWorker({
        queue,
        plugins,
        agentDefaults,
        transports: { results: fsTransport({ directory: resolve(resultsDirectory) }) },
        cacheDirectory: resolve(
          flags.cache ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "outpost", `queue-${queue.name}`),
        ),
        concurrency: flags.concurrency,
        ...(flags.name ? { name: flags.name } : {}),
        onEvent: say,
      });
      say({ type: "ready", worker: worker.name, queue: queue.name });
      let signals = 0;
      await new Promise<void>((done) => {
        const stop = () => {
          signals += 1;
          say({ type: "stopping", worker: worker.name });
          void worker.close(signals > 1).then(done, done);
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
    } finally {
      await queue.close();
    }
  });
}

function describeEvent(event: DispatchWorkerEvent | { type: "ready" | "stopping"; worker: string; queue?: string }): string {
  switch (event.type) {
    case "ready":
      return `worker ${event.worker} is taking jobs from ${event.queue}`;
    case "stopping":
      return `worker ${event.worker} stops: running jobs finish (signal again to leave them to other workers)`;
    case "reaped":
      return `reaped what killed attempts left:\n  ${event.actions.join("\n  ")}`;
    case "job-start":
      return `${event.job}: started (attempt ${event.attempt})`;
    case "lock-lost":
      return `${event.job}: lock lost, the job belongs to another worker now`;
    case "job-complete":
      return `${event.job}: done, ${event.result.commits.length} commit(s) on ${event.result.branch}`;
    case "job-fail":
      return `${event.job}: ${event.code}: ${event.message}${event.retry ? " (will be retried)" : ""}`;
  }
}
