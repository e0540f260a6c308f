import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { OutpostError } from "@outpost/core";
import type { FileApiPlatform, WrappedOutcome, WrappedRun } from "../../src/index.js";

/**
 * A platform whose "sandbox" is a host directory: commands are real host processes (text output, stdin
 * fed by the request), files are read with fs. Lets the file-API channel run its real scripts and tar.
 */
export function hostProcessPlatform(overrides: Partial<FileApiPlatform> = {}): FileApiPlatform & { readonly removed: string[] } {
  const removed: string[] = [];
  return {
    api: "Test",
    removed,
    run: runOnHost,
    readFile: async (path) => ((await stat(path).catch(() => undefined)) === undefined ? null : createReadStream(path)),
    removeFile: async (path) => {
      removed.push(path);
      await rm(path, { force: true });
    },
    mapError: (error, action) => new OutpostError("provider", `Could not ${action}: the Test API failed. Retry.`, { cause: error }),
    ...overrides,
  };
}

/**
 * Runs argv in `directory`; stops the process when the guard fires. `gone` stands for the sandbox being
 * torn down: the process is killed and the run fails as a platform would ("no such sandbox").
 */
export function runOnHost(options: WrappedRun, gone?: AbortSignal): Promise<WrappedOutcome> {
  options.guard.check();
  const [executable, ...rest] = options.argv;
  const child = spawn(executable!, rest, { cwd: options.directory, env: { ...process.env, ...options.variables }, stdio: "pipe" });
  child.stdout.setEncoding("utf8").on("data", options.onStdout);
  child.stderr.setEncoding("utf8").on("data", options.onStderr);
  const stop = () => child.kill("SIGKILL");
  options.guard.signal.addEventListener("abort", stop, { once: true });
  gone?.addEventListener("abort", stop, { once: true });
  const fed =
    options.feed === undefined ? Promise.resolve(void child.stdin.end()) : options.feed(child.stdin).then(() => void child.stdin.end());
  fed.catch(() => child.kill("SIGKILL"));
  return new Promise<WrappedOutcome>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (status) => {
      options.guard.signal.removeEventListener("abort", stop);
      if (options.guard.error !== undefined) return reject(options.guard.error);
      if (gone?.aborted === true) return reject(new Error("no such sandbox"));
      resolve({ start: { pid: child.pid ?? 0 }, status: status ?? 128 });
    });
  });
}
