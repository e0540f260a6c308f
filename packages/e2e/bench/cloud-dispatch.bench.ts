// A dispatch with the script agent on the cloud providers, on their API doubles with 40 ms injected per request
// and per log-stream message (issue 36's goal: the serial round trips before the agent starts and after it ends,
// each no more than the raw minimum + 2). The raw minimum is measured with the SDK by hand on the same double:
// before, create; the home, a root and a session at once; one upload (the repository bundle and the agent's
// settings); one clone; after, one bundle of the result, one download, the delete. Prints counts; asserts nothing.
// Run: npm run bench:cloud -w @outpost/e2e
import "./private-tmpdir.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Daytona } from "@daytonaio/sdk";
import type { SandboxLease, SandboxProvider } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { scratchRepository, scriptAgent } from "../src/index.js";

const LATENCY_MS = Number(process.env.OUTPOST_BENCH_LATENCY_MS ?? 40);
const double = await startDaytonaDouble({ latencyMs: LATENCY_MS });
const trips = double.roundTrips;

/** Marks the double's timeline when the agent's command starts and ends (the lease's invoke of its executable). */
function watched(provider: SandboxProvider, agentScript: string, marks: { start?: number; end?: number }): SandboxProvider {
  return {
    ...provider,
    acquire: async (context) => {
      const lease = await provider.acquire(context);
      const invoke: SandboxLease["invoke"] = async (command) => {
        const agent = command.arguments?.[0] === agentScript;
        if (agent) marks.start = trips.mark();
        try {
          return await lease.invoke(command);
        } finally {
          if (agent) marks.end = trips.mark();
        }
      };
      return Object.assign(Object.create(lease) as SandboxLease, { invoke });
    },
  };
}

async function outpostDispatch(): Promise<{
  before: number;
  after: number;
  ms: number;
  routes: { before: readonly string[]; after: readonly string[] };
}> {
  const repository = scratchRepository();
  const directory = mkdtempSync(join(tmpdir(), "outpost-cloud-agent-"));
  const agent = scriptAgent({ directory, behaviour: { FILE: "hello.txt", CONTENT: "hello\n" } });
  const script = join(directory, "script-agent.mjs");
  const marks: { start?: number; end?: number } = {};
  const begin = trips.mark();
  const started = performance.now();
  const result = await dispatch({
    agent,
    brief: "Create hello.txt",
    repository,
    sandboxProvider: watched(daytonaProvider(double.credentials), script, marks),
    branch: { mode: "integrate" },
  });
  const ms = performance.now() - started;
  if (!result.completed || marks.start === undefined || marks.end === undefined)
    throw new Error("the dispatch did not run the agent to its end");
  const before = trips.serial(begin, marks.start);
  const after = trips.serial(marks.end);
  return { before: before.count, after: after.count, ms, routes: { before: before.routes, after: after.routes } };
}

/** The least the same work needs with the SDK by hand, in serial round trips before and after the agent. */
async function rawMinimum(): Promise<{ before: number; after: number }> {
  const repository = scratchRepository();
  const bundle = join(mkdtempSync(join(tmpdir(), "outpost-cloud-raw-")), "work.bundle");
  execFileSync("git", ["bundle", "create", "--quiet", bundle, "--all"], { cwd: repository });
  const daytona = new Daytona({ ...double.credentials, useDeprecatedPolling: true });
  const begin = trips.mark();
  const sandbox = await daytona.create();
  const root = `/tmp/raw-${sandbox.id}/workspace`;
  const [home] = await Promise.all([sandbox.getUserHomeDir(), sandbox.fs.createFolder(root, "755"), sandbox.process.createSession("raw")]);
  await sandbox.fs.uploadFiles([
    { source: readFileSync(bundle), destination: `/tmp/raw-${sandbox.id}/work.bundle` },
    { source: Buffer.from("{}"), destination: `${home}/.script-agent/settings.json` },
  ]);
  const cloned = await sandbox.process.executeSessionCommand("raw", {
    command: `git clone --quiet /tmp/raw-${sandbox.id}/work.bundle ${root}/repo`,
  });
  if (cloned.exitCode !== 0) throw new Error(`raw clone failed: ${cloned.stderr ?? ""}`);
  const start = trips.mark();
  const bundled = await sandbox.process.executeSessionCommand("raw", {
    command: `git -C ${root}/repo bundle create --quiet /tmp/raw-${sandbox.id}/out.bundle HEAD`,
  });
  if (bundled.exitCode !== 0) throw new Error(`raw bundle failed: ${bundled.stderr ?? ""}`);
  await sandbox.fs.downloadFile(`/tmp/raw-${sandbox.id}/out.bundle`);
  await sandbox.delete();
  return { before: trips.serial(begin, start).count, after: trips.serial(start).count };
}

try {
  const raw = await rawMinimum();
  await outpostDispatch(); // warm: the agent's executable and the host's caches
  const measured = await outpostDispatch();
  console.log(`daytona dispatch with the script agent, ${LATENCY_MS} ms per request and message, ${measured.ms.toFixed(0)} ms in all`);
  console.log(
    `  serial round trips before the agent starts: outpost ${measured.before}, raw minimum ${raw.before} (goal ≤ ${raw.before + 2})`,
  );
  console.log(
    `  serial round trips after the agent ends:    outpost ${measured.after}, raw minimum ${raw.after} (goal ≤ ${raw.after + 2})`,
  );
  if (process.env.OUTPOST_BENCH_ROUTES) console.log(measured.routes);
} finally {
  await double.close();
}
