import { Readable } from "node:stream";
import type { OutpostError } from "@outpost/core";
import { mapArchiveError } from "./map-archive-error.js";
import type { ArchiveRequest, SandboxChannel, ScriptRequest } from "./sandbox-channel.js";
import { sandboxRefusal } from "./sandbox-refusal.js";
import { TailBuffer } from "./tail-buffer.js";
import type { StagedEntry } from "./tar-unpack.js";
import { unpackToStaging } from "./tar-unpack.js";
import type { WrappedOutcome, WrappedRun } from "./wrapped-command.js";

const STDERR_TAIL = 16 * 1024;

/** The sandbox side of a file-API channel: its anchors, a scratch directory and lease-unique names. */
export interface FileApiSandbox {
  readonly root: string;
  readonly home: string;
  /** A lease-private directory in the sandbox (archives), outside root and home. */
  readonly scratch: string;
  nextName(prefix: string): string;
  assertUsable(what: string): void;
}

/** What a platform gives a FileApiChannel. */
export interface FileApiPlatform {
  /** The API in messages: "Vercel", "Daytona". */
  readonly api: string;
  /** Runs one process through FRAMED_COMMAND_WRAPPER with text output (the platform's command API). */
  run(options: WrappedRun): Promise<WrappedOutcome>;
  /** Reads a sandbox file through the platform's file API; null when it does not exist. */
  readFile(path: string, signal: AbortSignal): Promise<Readable | Buffer | null>;
  /** Removes a sandbox file, best effort (its failure is ignored). */
  removeFile(path: string): Promise<unknown>;
  /** A platform failure → an OutpostError that keeps the cause, status and request id and says what to do. */
  mapError(error: unknown, action: string): OutpostError;
}

/**
 * The shared transfer code's view of a sandbox whose command output is text (no binary stdout): scripts
 * run through the platform's command runner with stdin as input frames, and an archive is written to a
 * scratch file, read back through the platform's file API and unpacked into host staging. Its rule: **a
 * file-API failure is the platform's mapped error unless the operation's guard fired first** (then the
 * guard's timeout/abort), a corrupt archive names the API connection to check, and the scratch archive is
 * removed afterwards unless the operation was aborted (the sandbox may be gone).
 */
export class FileApiChannel implements SandboxChannel {
  readonly connection: string;

  constructor(
    private readonly sandbox: FileApiSandbox,
    private readonly platform: FileApiPlatform,
  ) {
    this.connection = `the connection to the ${platform.api} API`;
  }

  get root(): string {
    return this.sandbox.root;
  }

  get home(): string {
    return this.sandbox.home;
  }

  assertUsable(what: string): void {
    this.sandbox.assertUsable(what);
  }

  async runScript(request: ScriptRequest): Promise<number> {
    const outcome = await this.platform.run({
      argv: ["/bin/sh", "-c", request.script, request.name, ...request.arguments],
      directory: "/",
      onStdout: (chunk) => request.onStdout(bytesOf(chunk)),
      onStderr: (chunk) => request.onStderr(bytesOf(chunk)),
      guard: request.guard,
      what: request.what,
      outputAtEnd: true,
      ...(request.feed === undefined ? {} : { feed: request.feed }),
    });
    return outcome.status;
  }

  async archive(request: ArchiveRequest): Promise<{ prefix: string; entries: StagedEntry[] }> {
    const archive = `${this.sandbox.scratch}/${this.sandbox.nextName("out")}.tar`;
    let stdout = "";
    const stderr = new TailBuffer(STDERR_TAIL);
    const { guard } = request;
    try {
      const outcome = await this.platform.run({
        argv: ["/bin/sh", "-c", request.script, "outpost-download", ...request.arguments(archive)],
        directory: "/",
        onStdout: (chunk) => void (stdout += bytesOf(chunk).toString("utf8")),
        onStderr: (chunk) => stderr.push(bytesOf(chunk)),
        guard,
        what: request.action,
        outputAtEnd: true,
      });
      if (outcome.status !== 0) throw sandboxRefusal(outcome.status, stderr.text(), request.action);
      guard.check();
      const content = await this.platform.readFile(archive, guard.signal).catch((error: unknown) => {
        throw guard.error ?? this.platform.mapError(error, request.action);
      });
      if (content === null) throw sandboxRefusal(92, `the archive ${archive} vanished before it was read`, request.action);
      const stream = Buffer.isBuffer(content) ? Readable.from([content]) : content;
      const entries = await unpackToStaging(stream, request.staging, guard.check, undefined, request.meter).catch((error: unknown) => {
        stream.destroy();
        throw guard.error ?? mapArchiveError(error, request.action, this.connection);
      });
      return { prefix: stdout.slice(0, request.prefixBytes), entries };
    } finally {
      if (!guard.signal.aborted) await this.platform.removeFile(archive).catch(() => undefined);
    }
  }
}

function bytesOf(chunk: string | Buffer): Buffer {
  return typeof chunk === "string" ? Buffer.from(chunk) : chunk;
}
