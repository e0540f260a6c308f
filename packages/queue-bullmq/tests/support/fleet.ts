import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../../../..");

/** A worker process and the events it printed. */
export interface WorkerProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly events: Array<Record<string, unknown>>;
  readonly exited: Promise<void>;
  waitFor(predicate: (event: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  output(): string;
}

/** `built`: the worker loads the packages' dist/ (benchmarks) instead of their sources (tests). */
export function startWorker(name: string, environment: Record<string, string>, options: { readonly built?: boolean } = {}): WorkerProcess {
  const conditions = options.built ? [] : ["--conditions=outpost-source"];
  const child = spawn(process.execPath, ["--import", "tsx", ...conditions, join(here, "worker-process.ts")], {
    cwd: root,
    env: { ...process.env, ...environment, QUEUE_TEST_NAME: name },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: a test stops or kills the worker with everything it started.
    detached: true,
  });
  const events: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let buffer = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      try {
        events.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        stderr += `${line}\n`;
      }
      for (const waiter of waiters.splice(0)) waiter();
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8_000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    name,
    child,
    events,
    exited,
    output: () => stderr,
    waitFor: (predicate, timeoutMs = 90_000) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`${name}: no matching event in ${timeoutMs} ms; stderr: ${stderr.slice(-2_000)}`)),
          timeoutMs,
        );
        const check = () => {
          const found = events.find(predicate);
          if (found) {
            clearTimeout(deadline);
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(deadline);
            reject(new Error(`${name} exited (${child.exitCode ?? child.signalCode}); stderr: ${stderr.slice(-2_000)}`));
          } else waiters.push(check);
        };
        check();
      }),
  };
}

/** Sends `signal` to the worker's whole process group. */
export function signalWorker(worker: WorkerProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-worker.child.pid!, signal);
  } catch {
    // already gone
  }
}

export function git(directory: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: directory, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A bare repository as the remote, with one commit on main. */
export function bareRemote(): string {
  const base = mkdtempSync(join(tmpdir(), "outpost-queue-remote-"));
  const remote = join(base, "remote.git");
  const seed = join(base, "seed");
  git(base, "init", "--quiet", "--bare", "--initial-branch=main", remote);
  git(base, "init", "--quiet", "--initial-branch=main", seed);
  writeFileSync(join(seed, "README.md"), "# fleet\n");
  git(seed, "add", "README.md");
  git(seed, "-c", "user.name=Seed", "-c", "user.email=seed@outpost.invalid", "commit", "--quiet", "-m", "seed");
  git(seed, "push", "--quiet", remote, "main");
  return remote;
}

/** Polls `condition` until it holds; past `timeoutMs` throws with `explain()`. */
export async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number, explain?: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms${explain ? `: ${await explain()}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
