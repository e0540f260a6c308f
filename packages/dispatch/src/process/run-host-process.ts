import { spawn } from "node:child_process";
import { OutpostError } from "@outpost/core";

export interface HostProcessInput {
  readonly executable: string;
  readonly arguments?: readonly string[];
  readonly directory: string;
  /** Added to the parent environment. */
  readonly variables?: Readonly<Record<string, string | undefined>>;
  readonly stdin?: string;
  /** Kills the whole process group after this many milliseconds (code `timeout`). */
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
  /** What is running, for error messages. */
  readonly what: string;
}

export interface HostProcessResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

const KEEP_BYTES = 1024 * 1024;

/**
 * Runs one host process in its own process group, so a deadline or an abort ends its whole tree.
 * Resolves with the real exit status; rejects only for spawn failures, deadlines and aborts.
 */
export function runHostProcess(input: HostProcessInput): Promise<HostProcessResult> {
  return new Promise((resolvePromise, reject) => {
    if (input.signal?.aborted) {
      reject(new OutpostError("aborted", `${input.what} was aborted before it started.`, { cause: input.signal.reason }));
      return;
    }
    const child = spawn(input.executable, [...(input.arguments ?? [])], {
      cwd: input.directory,
      env: { ...process.env, ...input.variables },
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let ended: OutpostError | undefined;
    const killTree = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer =
      input.deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            ended = new OutpostError(
              "timeout",
              `${input.what} did not finish within ${input.deadlineMs} ms and was stopped. Make it faster or raise its deadline.`,
              { details: { deadlineMs: input.deadlineMs } },
            );
            killTree();
          }, input.deadlineMs);
    const onAbort = (): void => {
      ended = new OutpostError("aborted", `${input.what} was aborted.`, { cause: input.signal?.reason });
      killTree();
    };
    input.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout = (stdout + text).slice(-KEEP_BYTES);
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr = (stderr + text).slice(-KEEP_BYTES);
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(input.stdin ?? "");
    child.on("error", (error) => {
      if (timer) clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
      reject(
        new OutpostError(
          "process",
          `Could not start ${input.what} (${input.executable}): ${error.message}. Check that it is installed and on PATH.`,
          { cause: error },
        ),
      );
    });
    child.on("close", (code, signalName) => {
      if (timer) clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
      if (ended) {
        reject(ended);
        return;
      }
      const status = code ?? 128 + signalNumber(signalName);
      resolvePromise({ status, stdout, stderr });
    });
  });
}

function signalNumber(name: NodeJS.Signals | null): number {
  const numbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
  return name ? (numbers[name] ?? 0) : 0;
}
