import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { outpostArguments, PACKAGES } from "./cli-process.js";

/** `outpost worker --json` as its own process (its own group), and the JSON lines it printed. */
export interface OutpostWorker {
  readonly name: string;
  readonly child: ChildProcessWithoutNullStreams;
  readonly events: Array<Record<string, unknown>>;
  readonly exited: Promise<number | null>;
  waitFor(predicate: (event: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Signals the whole process group (the worker and every agent it started). */
  signal(signal: NodeJS.Signals): void;
}

export function startOutpostWorker(name: string, args: readonly string[], environment: Record<string, string>): OutpostWorker {
  const child = spawn(process.execPath, outpostArguments(["worker", "--json", "--name", name, ...args]), {
    cwd: PACKAGES,
    env: { ...process.env, ...environment },
    stdio: "pipe",
    detached: true,
  });
  const events: Array<Record<string, unknown>> = [];
  let buffer = "";
  let other = "";
  const waiters: Array<() => void> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      try {
        events.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        other = (other + line + "\n").slice(-8_000);
      }
    }
    for (const waiter of waiters.splice(0)) waiter();
  });
  child.stderr.on("data", (chunk: Buffer) => (other = (other + chunk.toString()).slice(-8_000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  void exited.then(() => {
    for (const waiter of waiters.splice(0)) waiter();
  });
  return {
    name,
    child,
    events,
    exited,
    signal: (signal) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    },
    waitFor: (predicate, timeoutMs = 120_000) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`${name}: no matching event in ${timeoutMs} ms; output: ${other}`)), timeoutMs);
        const check = () => {
          const found = events.find(predicate);
          if (found) {
            clearTimeout(deadline);
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(deadline);
            reject(new Error(`${name} exited (${child.exitCode ?? child.signalCode}); output: ${other}`));
          } else waiters.push(check);
        };
        check();
      }),
  };
}

/** Runs `outpost <args>` to its end as a child process. */
export function runOutpost(
  args: readonly string[],
  environment: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, outpostArguments(args), {
      cwd: PACKAGES,
      env: { ...process.env, ...environment },
      stdio: "pipe",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

export function git(directory: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: directory, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A bare repository as the fleet's remote, with one commit on main. */
export function bareRemote(): string {
  const base = mkdtempSync(join(tmpdir(), "outpost-fleet-remote-"));
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
