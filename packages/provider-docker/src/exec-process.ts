import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type Docker from "dockerode";
import { KILL_TREE } from "@outpost/plugin-utils";
import { COMMAND_WRAPPER, HEADER_BYTES } from "./command-wrapper.js";
import { FrameDemuxer } from "./frame-demuxer.js";

/** Where an exec's output goes, once it was handed its command. */
export interface ExecSinks {
  /** May return a promise to apply backpressure. */
  readonly onStdout: (chunk: Buffer) => void | Promise<void>;
  readonly onStderr: (chunk: Buffer) => void;
}

/**
 * How the wrapper's header ended: a pid, the reason the command never started, a refused home file, or
 * `lost`: the output ended without a byte of header (the wrapper was killed, or the image has no /bin/sh).
 */
export type ExecStart =
  { readonly pid: number } | { readonly missing: "directory" | "executable" } | { readonly refused: string } | { readonly lost: true };

/**
 * One `sh` running COMMAND_WRAPPER through `docker exec`: started first, handed its command later (`run`),
 * so it can be started ahead of time. Once running, the process leads its own process group in the container.
 */
export class ExecProcess {
  /** Resolves once the header arrived (or the stream ended without one). */
  readonly started: Promise<ExecStart>;
  /** Resolves with the exit code once output is drained and the process is gone. */
  readonly exited: Promise<number>;
  /** The exec's output ended (a standby that died waiting for its command is of no use). */
  ended = false;
  private header = Buffer.alloc(0);
  private refusal: Buffer | undefined;
  private sinks: ExecSinks | undefined;
  private discarded = false;
  private resolveStart!: (start: ExecStart) => void;
  private killing: Promise<void> | undefined;

  private constructor(
    private readonly container: Docker.Container,
    private readonly exec: Docker.Exec,
    readonly stream: Duplex,
  ) {
    this.started = new Promise((resolve) => (this.resolveStart = resolve));
    this.exited = this.delivered(stream).then(() => (this.discarded ? -1 : this.exitCode()));
    // Marks the end whoever waits; a standby that is never used must not leave an unhandled rejection.
    this.exited.then(
      () => (this.ended = true),
      () => (this.ended = true),
    );
  }

  /** Creates and starts the exec; it waits for its command on stdin. `environment`: `NAME=value` pairs for its Env. */
  static async spawn(container: Docker.Container, environment?: readonly string[]): Promise<ExecProcess> {
    const exec = await container.exec({
      Cmd: ["/bin/sh", "-c", COMMAND_WRAPPER, "outpost"],
      Env: environment && environment.length > 0 ? [...environment] : undefined,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
    });
    const stream = await exec.start({ hijack: true, stdin: true });
    return new ExecProcess(container, exec, stream);
  }

  /** Hands the process its command (an encoded ExecRequest); its output goes to `sinks` from now on. */
  run(request: Buffer, sinks: ExecSinks): void {
    (this.stream as Partial<Socket>).ref?.();
    this.sinks = sinks;
    this.stream.write(request);
  }

  /** A waiting standby's connection does not keep the process alive (a lease never released, say). */
  idle(): void {
    (this.stream as Partial<Socket>).unref?.();
  }

  /** Drops a process that was never given a command: its wrapper reads the end of stdin and exits. */
  discard(): void {
    this.discarded = true;
    this.stream.destroy();
  }

  /** Closes the process's stdin (the hijacked connection's write side). */
  closeStdin(): void {
    if (!this.stream.writableEnded) this.stream.end();
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
  private delivered(stream: Duplex): Promise<void> {
    const demuxer = new FrameDemuxer((channel, chunk) => (channel === "stdout" ? this.stdout(chunk) : this.sinks?.onStderr(chunk)));
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
    if (this.refusal !== undefined) {
      this.refusal = Buffer.concat([this.refusal, chunk]).subarray(0, 4096);
      return;
    }
    if (this.header.length >= HEADER_BYTES) return this.sinks?.onStdout(chunk);
    this.header = Buffer.concat([this.header, chunk]);
    const first = this.header[0];
    if (first === 0x44 /* D */) return this.resolveStart({ missing: "directory" });
    if (first === 0x58 /* X */) return this.resolveStart({ missing: "executable" });
    // The reason runs to the end of stdout; it is known once the wrapper exited.
    if (first === 0x48 /* H */) {
      this.refusal = this.header.subarray(1);
      return;
    }
    if (this.header.length < HEADER_BYTES) return;
    this.resolveStart({ pid: Number(this.header.subarray(1, HEADER_BYTES).toString("latin1")) });
    const rest = this.header.subarray(HEADER_BYTES);
    if (rest.length > 0) return this.sinks?.onStdout(rest);
  }

  private async exitCode(): Promise<number> {
    if (this.refusal !== undefined) this.resolveStart({ refused: this.refusal.toString("utf8") });
    this.resolveStart(this.header.length === 0 ? { lost: true } : { missing: "executable" });
    // The stream can end a moment before the engine records the exit code.
    for (let attempt = 0; attempt < 200; attempt++) {
      const state = await this.exec.inspect();
      if (!state.Running && state.ExitCode !== null) return state.ExitCode;
      await sleep(attempt < 10 ? 5 : 50);
    }
    throw new Error("the exec's output ended but the engine still reports it running after 10 s");
  }
}
