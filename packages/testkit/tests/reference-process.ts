import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { DEFAULT_RETAIN_BYTES, OutpostError, abortError, throwIfAborted } from "@outpost/core";
import type { Command, CommandResult } from "@outpost/core";
import type { ReferenceFlaws } from "./provider-reference.js";

/** The variable that marks every process of a reference lease, so release() finds those that left their group. */
export const REFERENCE_MARK = "OUTPOST_REFERENCE_MARK";

export function run(
  command: Command,
  root: string,
  env: NodeJS.ProcessEnv,
  flaws: ReferenceFlaws,
  running: Set<() => void>,
  groups: Set<number>,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    throwIfAborted(command.signal, "The command");
    const child = spawn(command.executable, [...(command.arguments ?? [])], { cwd: command.directory ?? root, env, detached: true });
    if (child.pid !== undefined) groups.add(child.pid);
    const output = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    let failure: Error | undefined;
    const kill = (error: Error) => {
      failure ??= error;
      try {
        process.kill(flaws.killLeaderOnly ? child.pid! : -child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const stopOnRelease = () => kill(new OutpostError("provider", "The reference lease was released while the command ran."));
    running.add(stopOnRelease);
    const timer =
      command.deadlineMs === undefined
        ? undefined
        : setTimeout(
            () => kill(new OutpostError("timeout", `The command passed its deadline of ${command.deadlineMs} ms.`)),
            command.deadlineMs,
          );
    const onAbort = () => kill(abortError(command.signal!, "The command"));
    command.signal?.addEventListener("abort", onAbort, { once: true });
    let settle: (() => void) | undefined;
    const silence = flaws.endsAtSilence ? setTimeout(() => settle?.(), 500) : undefined;
    for (const channel of ["stdout", "stderr"] as const) {
      const decoder = new StringDecoder("utf8");
      const target = flaws.mergeStreams ? "stdout" : channel;
      child[channel].on("data", (chunk: Buffer) => {
        silence?.refresh();
        output[target].push(flaws.decodesChunksApart ? Buffer.from(chunk.toString("utf8")) : chunk);
        const text = flaws.decodesChunksApart ? chunk.toString("utf8") : decoder.write(chunk);
        if (text === "" || command.observe === undefined) return;
        if (flaws.observeEscapes) {
          try {
            command.observe(channel, text);
          } catch (error) {
            kill(error as Error);
          }
        } else {
          try {
            command.observe(channel, text);
          } catch {
            // observers never break the run
          }
        }
      });
    }
    child.stdin.on("error", () => undefined);
    if (command.stdin !== undefined) child.stdin.write(command.stdin);
    if (command.input) command.input.pipe(child.stdin);
    else child.stdin.end();
    child.once("error", (error) =>
      reject(new OutpostError("process", `Could not start the command: ${error.message}. Check the executable.`)),
    );
    // Settle on exit, with a moment for the pipes to drain: a leftover grandchild may hold them open.
    const closed = new Promise((resolveClose) => child.once("close", resolveClose));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolveExit) =>
      child.once("exit", (code, signal) => resolveExit([code, signal])),
    );
    const silent = new Promise<[number, null]>((resolveSilent) => (settle = () => resolveSilent([0, null])));
    void Promise.race([exited, silent]).then(async ([code, signal]) => {
      clearTimeout(silence);
      await Promise.race([closed, new Promise((wait) => setTimeout(wait, 200))]);
      if (flaws.killsBackgroundAfterCommand) signalGroup(child.pid!);
      running.delete(stopOnRelease);
      if (timer) clearTimeout(timer);
      command.signal?.removeEventListener("abort", onAbort);
      if (failure) return reject(failure);
      const retain = command.retain ?? DEFAULT_RETAIN_BYTES;
      const tail = (chunks: Buffer[]) => {
        const bytes = Buffer.concat(chunks);
        return bytes.subarray(Math.max(0, bytes.length - retain)).toString("utf8");
      };
      resolve({ status: code ?? 128 + constants.signals[signal!], stdout: tail(output.stdout), stderr: tail(output.stderr) });
    });
  });
}

export function signalGroup(group: number): void {
  try {
    process.kill(-group, "SIGKILL");
  } catch {
    // already gone
  }
}

/** SIGKILLs every process whose environment carries this lease's mark (setsid grandchildren included). */
export function killMarked(mark: string): void {
  const needle = `\0${REFERENCE_MARK}=${mark}\0`;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (`\0${readFileSync(`/proc/${name}/environ`, "latin1")}`.includes(needle)) process.kill(Number(name), "SIGKILL");
    } catch {
      // gone, or not ours
    }
  }
}
