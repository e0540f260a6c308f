import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { describeGated, redisGate } from "@outpost/testkit/gates";
import { enqueueDispatch, openDispatchQueue } from "@outpost/queue-bullmq";
import { main } from "../src/main.js";

const gated = await redisGate();
const evicting = gated.server ? await redisGate({ maxmemoryPolicy: "allkeys-lru" }) : {};
afterAll(async () => {
  await gated.server?.stop();
  await evicting.server?.stop();
});

const here = dirname(fileURLToPath(import.meta.url));
const temporary = (name: string) => mkdtempSync(join(tmpdir(), `outpost-cli-queue-${name}-`));

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const text = { stdout: "", stderr: "" };
  stdout.on("data", (chunk: Buffer) => (text.stdout += chunk.toString()));
  stderr.on("data", (chunk: Buffer) => (text.stderr += chunk.toString()));
  const code = await main(["node", "outpost", ...args], { stdout, stderr });
  return { code, ...text };
}

describeGated("outpost worker and outpost queue on a real Redis", gated, () => {
  it("a worker refuses a Redis that may evict keys, with the fix", async () => {
    const refused = await run([
      "worker",
      "--redis",
      evicting.server!.url,
      "--results",
      temporary("results"),
      "--cache",
      temporary("cache"),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/configuration: .*allkeys-lru.*maxmemory-policy noeviction/);
    expect((await run(["worker", "--redis", gated.server!.url])).stderr).toMatch(/needs --results/);
  });

  it("a worker process takes jobs with the installed plugins; status and watch report them", async () => {
    const worker = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--conditions=outpost-source",
        join(here, "../src/bin.ts"),
        "worker",
        "--json",
        "--redis",
        gated.server!.url,
        "--queue",
        "cli",
        "--results",
        temporary("results"),
        "--cache",
        temporary("cache"),
        "--name",
        "cli-worker",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    worker.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    worker.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => worker.once("exit", (code) => resolve(code)));
    const queue = openDispatchQueue({ url: gated.server!.url, name: "cli" });
    try {
      const deadline = Date.now() + 90_000;
      while (!output.includes('"type":"ready"')) {
        if (Date.now() > deadline || worker.exitCode !== null) throw new Error(`the worker did not start: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // An agent this machine does not have: the job fails at once, naming the agents the worker loaded.
      const { id } = await enqueueDispatch(queue, {
        brief: "write a file",
        agent: { name: "no-such-agent" },
        provider: { name: "local" },
        repository: { url: temporary("not-a-remote") },
      });
      const watched = await run(["queue", "watch", id, "--redis", gated.server!.url, "--queue", "cli"]);
      expect(watched.code).toBe(2);
      expect(watched.stdout).toMatch(
        new RegExp(`${id} \\[failed\\]: \\[configuration\\] This worker has no agent "no-such-agent"; it has: .*claude`),
      );
      const status = await run(["queue", "status", "--json", "--redis", gated.server!.url, "--queue", "cli"]);
      expect(status.code).toBe(0);
      const report = JSON.parse(status.stdout) as { counts: Record<string, number>; failed: Array<{ id: string; attemptsMade: number }> };
      expect(report.counts).toMatchObject({ failed: 1, waiting: 0, active: 0 });
      expect(report.failed).toMatchObject([{ id, attemptsMade: 1 }]);
      expect((await run(["queue", "watch", "nope", "--redis", gated.server!.url, "--queue", "cli"])).stderr).toMatch(/has no job "nope"/);
      worker.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(output).toContain('"type":"stopping"');
      expect(output).toContain(`"type":"job-fail","job":"${id}","code":"configuration"`);
    } finally {
      worker.kill("SIGKILL");
      await queue.close();
    }
  });
});
