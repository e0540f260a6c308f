import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OUTPOST, git } from "./installed.js";

/** `outpost worker --json` from the installed bin, in its own process group, and the JSON lines it printed. */
export interface OutpostWorker {
  readonly events: Array<Record<string, unknown>>;
  readonly exited: Promise<number | null>;
  waitFor(predicate: (event: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  signal(signal: NodeJS.Signals): void;
}

export function startOutpostWorker(args: readonly string[], environment: Record<string, string>): OutpostWorker {
  const child: ChildProcessWithoutNullStreams = spawn(OUTPOST, ["worker", "--json", ...args], {
    env: { ...process.env, ...environment },
    stdio: "pipe",
    detached: true,
  });
  const events: Array<Record<string, unknown>> = [];
  let buffer = "";
  let other = "";
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
  });
  child.stderr.on("data", (chunk: Buffer) => (other = (other + chunk.toString()).slice(-8_000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    events,
    exited,
    signal: (signal) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    },
    waitFor: async (predicate, timeoutMs = 120_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(predicate);
        if (found) return found;
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the worker exited; output: ${other}`);
        if (Date.now() > deadline) throw new Error(`no matching worker event in ${timeoutMs} ms; output: ${other}`);
        await new Promise((done) => setTimeout(done, 100));
      }
    },
  };
}

/** A bare repository as the fleet's remote, with one commit on main. */
export function bareRemote(): string {
  const base = mkdtempSync(join(tmpdir(), "outpost-consumer-remote-"));
  const remote = join(base, "remote.git");
  const seed = join(base, "seed");
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", remote]);
  execFileSync("git", ["init", "--quiet", "--initial-branch=main", seed]);
  writeFileSync(join(seed, "README.md"), "# fleet\n");
  git(seed, "add", "README.md");
  git(seed, "commit", "--quiet", "-m", "seed");
  git(seed, "push", "--quiet", remote, "main");
  return remote;
}
