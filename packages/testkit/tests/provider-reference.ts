import { execFileSync, spawn } from "node:child_process";
import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { DEFAULT_RETAIN_BYTES, OutpostError, abortError, throwIfAborted } from "@outpost/core";
import type { Command, CommandResult, FileTransfers, SandboxLease, SandboxProvider } from "@outpost/core";

/** One deliberate defect per flag, so the kit's tests can prove each check catches it. */
export interface ReferenceFlaws {
  /** Deadline and abort kill only the command's own pid, not its process group. */
  readonly killLeaderOnly?: boolean;
  /** stderr is reported inside stdout. */
  readonly mergeStreams?: boolean;
  /** An exception thrown by `observe` escapes and fails the command. */
  readonly observeEscapes?: boolean;
  /** Whether leases claim live input (default true). */
  readonly liveInput?: boolean;
  /** Leases expose a `fileTransfers` object (only its presence matters to the capability check). */
  readonly fileTransfers?: boolean;
}

/**
 * A small host-process provider for testing the kit itself. Its upload/download are naive `cp -a` copies
 * with no safety checks at all: faithful for the round trip, deliberately blind to every escape.
 */
export function referenceProvider(flaws: ReferenceFlaws = {}): SandboxProvider {
  return {
    specificationVersion: "v1",
    name: "reference",
    placement: "host",
    async acquire(context) {
      throwIfAborted(context.signal, "Acquiring a reference lease");
      const home = await mkdtemp(join(tmpdir(), "outpost-reference-home-"));
      const running = new Set<() => void>();
      const groups = new Set<number>();
      let released = false;
      const refuse = async () => {
        throw new OutpostError("configuration", "The reference provider does not transfer files. Use a real provider for transfer checks.");
      };
      const presence: FileTransfers = { manifest: refuse, downloadBatch: refuse };
      const lease: SandboxLease = {
        specificationVersion: "v1",
        root: context.directory,
        home,
        liveInput: flaws.liveInput ?? true,
        ...(flaws.fileTransfers ? { fileTransfers: presence } : {}),
        invoke: (command) => {
          if (released) return Promise.reject(new OutpostError("provider", "The reference lease was released. Acquire a new one."));
          return run(command, context.directory, { ...process.env, HOME: home, ...context.variables, ...command.variables }, flaws, running, groups);
        },
        upload: (source, destination, options) => naiveCopy(source, resolve(context.directory, destination), options?.signal),
        download: (source, destination, options) => naiveCopy(resolve(context.directory, source), destination, options?.signal),
        async release() {
          if (released) return;
          released = true;
          for (const stop of running) stop();
          // Also whatever a flawed deadline left behind, so the kit's own tests leak no processes.
          for (const group of groups) signalGroup(group);
          await rm(home, { recursive: true, force: true });
        },
      };
      return lease;
    },
  };
}

function run(command: Command, root: string, env: NodeJS.ProcessEnv, flaws: ReferenceFlaws, running: Set<() => void>, groups: Set<number>): Promise<CommandResult> {
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
    const timer = command.deadlineMs === undefined ? undefined : setTimeout(() => kill(new OutpostError("timeout", `The command passed its deadline of ${command.deadlineMs} ms.`)), command.deadlineMs);
    const onAbort = () => kill(abortError(command.signal!, "The command"));
    command.signal?.addEventListener("abort", onAbort, { once: true });
    for (const channel of ["stdout", "stderr"] as const) {
      const decoder = new StringDecoder("utf8");
      const target = flaws.mergeStreams ? "stdout" : channel;
      child[channel].on("data", (chunk: Buffer) => {
        output[target].push(chunk);
        const text = decoder.write(chunk);
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
    child.once("error", (error) => reject(new OutpostError("process", `Could not start the command: ${error.message}. Check the executable.`)));
    // Settle on exit, with a moment for the pipes to drain: a leftover grandchild may hold them open.
    const closed = new Promise((resolveClose) => child.once("close", resolveClose));
    child.once("exit", async (code, signal) => {
      await Promise.race([closed, new Promise((wait) => setTimeout(wait, 200))]);
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

function signalGroup(group: number): void {
  try {
    process.kill(-group, "SIGKILL");
  } catch {
    // already gone
  }
}

async function naiveCopy(source: string, destination: string, signal: AbortSignal | undefined): Promise<void> {
  throwIfAborted(signal, "The copy");
  if (statSync(source).isDirectory()) {
    execFileSync("mkdir", ["-p", destination]);
    execFileSync("cp", ["-a", `${source}/.`, destination]);
  } else {
    execFileSync("mkdir", ["-p", dirname(destination)]);
    execFileSync("cp", ["-a", source, destination]);
  }
}
