import { execFile } from "node:child_process";
import { OutpostError } from "@outpost/core";

// The cache is the worker's own: hooks from a cloned repository must never run on the worker.
const HARDENING = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"];

/** Runs git; a failure is code `workspace`, classified `unavailable` when the remote could not be reached. */
export function runGit(
  directory: string | undefined,
  args: readonly string[],
  options: { remote?: boolean; signal?: AbortSignal } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      [...HARDENING, ...args],
      {
        cwd: directory,
        encoding: "utf8",
        maxBuffer: 16 * 1024 * 1024,
        signal: options.signal,
        // Never wait for a password prompt: a worker has no terminal.
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "true" },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout.trim());
        const detail = stderr.trim().slice(-1_000) || error.message;
        reject(
          new OutpostError("workspace", `git ${args[0]} failed: ${detail}. Check that the worker can reach and write the remote.`, {
            cause: error,
            details: { args: [...args], ...(options.remote ? { classification: "unavailable" } : {}) },
          }),
        );
      },
    );
  });
}
