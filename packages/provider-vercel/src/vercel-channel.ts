import type { Readable } from "node:stream";
import {
  type ArchiveRequest,
  mapArchiveError,
  type SandboxChannel,
  sandboxRefusal,
  type ScriptRequest,
  type StagedEntry,
  TailBuffer,
  unpackToStaging,
} from "@outpost/plugin-utils";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapVercelError } from "./map-vercel-error.js";
import { runInSandbox } from "./run-in-sandbox.js";

const STDERR_TAIL = 16 * 1024;
const CONNECTION = "the connection to the Vercel API";

/**
 * The shared transfer code's view of a Vercel sandbox: scripts are SDK commands (stdin through the input
 * frames of COMMAND_WRAPPER); command output is text, so an archive is written to a scratch file and read
 * back through the SDK's file API.
 */
export class VercelChannel implements SandboxChannel {
  readonly connection = CONNECTION;

  constructor(private readonly lease: LeaseSandbox) {}

  get root(): string {
    return this.lease.root;
  }

  get home(): string {
    return this.lease.home;
  }

  assertUsable(what: string): void {
    this.lease.assertUsable(what);
  }

  async runScript(request: ScriptRequest): Promise<number> {
    const outcome = await runInSandbox(this.lease, {
      argv: ["/bin/sh", "-c", request.script, request.name, ...request.arguments],
      directory: "/",
      onStdout: (text) => request.onStdout(Buffer.from(text)),
      onStderr: (text) => request.onStderr(Buffer.from(text)),
      guard: request.guard,
      what: request.what,
      ...(request.feed === undefined ? {} : { feed: request.feed }),
    });
    return outcome.status;
  }

  archive(request: ArchiveRequest): Promise<{ prefix: string; entries: StagedEntry[] }> {
    return archiveFromSandbox(this.lease, request);
  }
}

/**
 * Runs a sandbox script that writes a tar file (its stdout is the short kind marker), reads that file
 * through the SDK's file API and unpacks it into host staging; the file is removed afterwards.
 */
async function archiveFromSandbox(lease: LeaseSandbox, request: ArchiveRequest): Promise<{ prefix: string; entries: StagedEntry[] }> {
  const archive = `${lease.scratch}/${lease.nextName("out")}.tar`;
  let stdout = "";
  const stderr = new TailBuffer(STDERR_TAIL);
  try {
    const outcome = await runInSandbox(lease, {
      argv: ["/bin/sh", "-c", request.script, "outpost-download", ...request.arguments(archive)],
      directory: "/",
      onStdout: (text) => void (stdout += text),
      onStderr: (text) => stderr.push(Buffer.from(text)),
      guard: request.guard,
      what: request.action,
    });
    if (outcome.status !== 0) throw sandboxRefusal(outcome.status, stderr.text(), request.action);
    // The SDK's declared type is NodeJS.ReadableStream; at run time it is a Readable (Readable.fromWeb).
    const stream = (await lease.sandbox.readFile({ path: archive }, { signal: request.guard.signal }).catch((error: unknown) => {
      throw request.guard.error ?? mapVercelError(error, request.action);
    })) as Readable | null;
    if (stream === null) throw sandboxRefusal(92, `the archive ${archive} vanished before it was read`, request.action);
    const entries = await unpackToStaging(stream, request.staging, request.guard.check).catch((error: unknown) => {
      stream.destroy();
      throw request.guard.error ?? mapArchiveError(error, request.action, CONNECTION);
    });
    return { prefix: stdout.slice(0, request.prefixBytes), entries };
  } finally {
    if (!request.guard.signal.aborted) {
      await lease.sandbox.runCommand({ cmd: "rm", args: ["-f", "--", archive] }).catch(() => undefined);
    }
  }
}
