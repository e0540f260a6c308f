import type { Duplex } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type Docker from "dockerode";
import { KILL_TREE } from "@outpost/plugin-utils";
import { COMMAND_WRAPPER, HEADER_BYTES } from "./command-wrapper.js";
import { FrameDemuxer } from "./frame-demuxer.js";

export interface ExecLaunch {
  /** Executable and arguments, run through COMMAND_WRAPPER (no shell parsing of them). */
  readonly argv: readonly string[];
  readonly directory: string;
  /** `NAME=value` pairs added to the container's environment. */
  readonly environment?: readonly string[];
  readonly attachStdin: boolean;
  /** May return a promise to apply backpressure. */
  readonly onStdout: (chunk: Buffer) => void | Promise<void>;
  readonly onStderr: (chunk: Buffer) => void;
}

/** How the wrapper's header ended: a pid, or the reason the command never started. */
export type ExecStart = { readonly pid: number } | { readonly missing: "directory" | "executable" };

/** One process started through `docker exec`, leading its own process group inside the container. */
export class ExecProcess {
  /** Resolves once the header arrived (or the stream ended without one). */
  readonly started: Promise<ExecStart>;
  /** Resolves with the exit code once output is drained and the process is gone. */
  readonly exited: Promise<number>;
  private header = Buffer.alloc(0);
  private resolveStart!: (start: ExecStart) => void;
  private killing: Promise<void> | undefined;

  private constructor(
    private readonly container: Docker.Container,
    private readonly exec: Docker.Exec,
    readonly stream: Duplex,
    private readonly launch: ExecLaunch,
  ) {
    this.started = new Promise((resolve) => (this.resolveStart = resolve));
    this.exited = this.delivered(stream, launch).then(() => this.exitCode());
  }

  static async start(container: Docker.Container, launch: ExecLaunch): Promise<ExecProcess> {
    const exec = await container.exec({
      Cmd: ["/bin/sh", "-c", COMMAND_WRAPPER, "outpost", launch.directory, ...launch.argv],
      Env: launch.environment ? [...launch.environment] : undefined,
      AttachStdin: launch.attachStdin,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
    });
    const stream = await exec.start({ hijack: true, stdin: launch.attachStdin });
    return new ExecProcess(container, exec, stream, launch);
  }

  /** Closes the process's stdin (the hijacked connection's write side). */
  closeStdin(): void {
    if (this.launch.attachStdin && !this.stream.writableEnded) this.stream.end();
  }

  /** Kills the process and all its descendants inside the container; never the container itself. */
  kill(): Promise<void> {
    this.killing ??= this.killTree();
    return this.killing;
  }

  private async killTree(): Promise<void> {
    const start = await Promise.race([this.started, this.exited.then(() => undefined)]);
    if (start === undefined || !("pid" in start)) return;
    const killer = await this.container.exec({
      Cmd: ["/bin/sh", "-c", KILL_TREE, "outpost-kill", String(start.pid)],
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await killer.start({ hijack: true, stdin: false });
    stream.resume();
    await new Promise<void>((resolve) => {
      stream.once("end", resolve);
      stream.once("close", resolve);
      stream.once("error", () => resolve());
    });
  }

  /**
   * Resolves once every frame the engine sent was handed to the sinks. The socket closes as soon as its
   * last bytes are read, while frames can still wait in the demuxer behind a slow sink (a download's
   * unpacking under load): resolving on 'close' let callers end their archive with its tail missing.
   */
  private delivered(stream: Duplex, launch: ExecLaunch): Promise<void> {
    const demuxer = new FrameDemuxer((channel, chunk) => (channel === "stdout" ? this.stdout(chunk) : launch.onStderr(chunk)));
    return new Promise<void>((resolve, reject) => {
      let failure: Error | undefined;
      stream.on("error", (error) => (failure ??= error));
      demuxer.on("error", (error) => {
        // Nothing reads the connection any more: close it so the engine stops sending.
        stream.destroy();
        reject(failure ?? error);
      });
      demuxer.once("finish", () => (failure === undefined ? resolve() : reject(failure)));
      // pipe() ends the demuxer on 'end' only; a connection closed without it still delivers what arrived.
      stream.once("close", () => {
        if (!stream.readableEnded && !demuxer.writableEnded) demuxer.end();
      });
      stream.pipe(demuxer);
    });
  }

  private stdout(chunk: Buffer): void | Promise<void> {
    if (this.header.length >= HEADER_BYTES) return this.launch.onStdout(chunk);
    this.header = Buffer.concat([this.header, chunk]);
    const first = this.header[0];
    if (first === 0x44 /* D */) return this.resolveStart({ missing: "directory" });
    if (first === 0x58 /* X */) return this.resolveStart({ missing: "executable" });
    if (this.header.length < HEADER_BYTES) return;
    this.resolveStart({ pid: Number(this.header.subarray(1, HEADER_BYTES).toString("latin1")) });
    const rest = this.header.subarray(HEADER_BYTES);
    if (rest.length > 0) return this.launch.onStdout(rest);
  }

  private async exitCode(): Promise<number> {
    this.resolveStart({ missing: "executable" });
    // The stream can end a moment before the engine records the exit code.
    for (let attempt = 0; attempt < 200; attempt++) {
      const state = await this.exec.inspect();
      if (!state.Running && state.ExitCode !== null) return state.ExitCode;
      await sleep(attempt < 10 ? 5 : 50);
    }
    throw new Error("the exec's output ended but the engine still reports it running after 10 s");
  }
}
