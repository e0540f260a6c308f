import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { OutpostError, type AgentFactoryOptions, type PluginCommand, type PluginDescriptor } from "@outpost/core";
import { runDispatchWorker, type DispatchWorkerEvent } from "../run-dispatch-worker.js";
import { openResults } from "./open-results.js";
import { QUEUE_OPTIONS, text, withQueue } from "./queue-flags.js";

type WorkerNotice = DispatchWorkerEvent | { type: "ready" | "stopping"; worker: string; queue?: string };

/**
 * `outpost worker`: runs queued dispatches with every agent and provider installed here, each agent with this
 * machine's keys and endpoint (the host's OUTPOST_<AGENT>_BASE_URL, OUTPOST_API_KEY…), until SIGINT or SIGTERM;
 * the first signal lets running jobs finish, a second abandons them to other workers.
 */
export const workerCommand: PluginCommand = {
  path: ["worker"],
  description:
    "Run queued dispatches with the agents and providers installed here, on this machine's keys; push each job's branch and store its result.",
  options: [
    ...QUEUE_OPTIONS,
    {
      name: "results",
      value: "location",
      description:
        "where every worker stores results, journals and conversations: s3://bucket/prefix, <transport>://…, or a shared folder (or OUTPOST_QUEUE_RESULTS)",
    },
    { name: "cache", value: "dir", description: "this worker's own clone cache (default: ~/.cache/outpost/queue-<queue>)" },
    { name: "concurrency", value: "n", description: "jobs run at once", default: "1" },
    { name: "name", value: "name", description: "worker name shown in job progress (default: <host>-<pid>)" },
  ],
  run: async (input, host) => {
    const location = text(input, "results") ?? process.env.OUTPOST_QUEUE_RESULTS;
    if (location === undefined)
      throw new OutpostError(
        "configuration",
        "outpost worker needs --results <location> (or OUTPOST_QUEUE_RESULTS): s3://bucket/prefix or the folder all workers share for results and conversations.",
      );
    const concurrency = Number(text(input, "concurrency") ?? "1");
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new OutpostError("configuration", `--concurrency ${text(input, "concurrency")}: expected a positive integer.`);
    const results = await openResults(location, host.transport);
    const plugins = (await host.plugins()).filter(
      (plugin): plugin is PluginDescriptor => plugin.kind === "agent" || plugin.kind === "provider",
    );
    const agentDefaults: Record<string, AgentFactoryOptions> = {};
    for (const plugin of plugins) if (plugin.kind === "agent") agentDefaults[plugin.name] = host.agentOptions(plugin);
    const json = input.options.json === true;
    const say = (event: WorkerNotice) => host.stdout.write(json ? `${JSON.stringify(event)}\n` : `${describeEvent(event)}\n`);
    const name = text(input, "name");
    await withQueue(input, async (queue) => {
      const worker = await runDispatchWorker({
        queue,
        plugins,
        agentDefaults,
        transports: { results },
        cacheDirectory: resolve(
          text(input, "cache") ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "outpost", `queue-${queue.name}`),
        ),
        concurrency,
        ...(name ? { name } : {}),
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
    });
  },
};

function describeEvent(event: WorkerNotice): string {
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
