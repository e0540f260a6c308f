import { Readable } from "node:stream";
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
import { mapDaytonaError } from "./map-daytona-error.js";
import { runInDaytona } from "./run-in-daytona.js";
import { shellCommand } from "./shell-words.js";

const STDERR_TAIL = 16 * 1024;
const CONNECTION = "the connection to the Daytona API";

/**
 * The shared transfer code's view of a Daytona sandbox: scripts are session commands (stdin through the
 * input frames of FRAMED_COMMAND_WRAPPER); session logs are text, so an archive is written to a scratch
 * file and read back through the SDK's file API.
 */
export class DaytonaChannel implements SandboxChannel {
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
    const outcome = await runInDaytona(this.lease, {
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

async function archiveFromSandbox(lease: LeaseSandbox, request: ArchiveRequest): Promise<{ prefix: string; entries: StagedEntry[] }> {
  const archive = `${lease.scratch}/${lease.nextName("out")}.tar`;
  let stdout = "";
  const stderr = new TailBuffer(STDERR_TAIL);
  try {
    const outcome = await runInDaytona(lease, {
      argv: ["/bin/sh", "-c", request.script, "outpost-download", ...request.arguments(archive)],
      directory: "/",
      onStdout: (text) => void (stdout += text),
      onStderr: (text) => stderr.push(Buffer.from(text)),
      guard: request.guard,
      what: request.action,
    });
    if (outcome.status !== 0) throw sandboxRefusal(outcome.status, stderr.text(), request.action);
    request.guard.check();
    const bytes = await lease.sandbox.fs.downloadFile(archive).catch((error: unknown) => {
      throw request.guard.error ?? mapDaytonaError(error, request.action);
    });
    const entries = await unpackToStaging(Readable.from([bytes]), request.staging, request.guard.check).catch((error: unknown) => {
      throw request.guard.error ?? mapArchiveError(error, request.action, CONNECTION);
    });
    return { prefix: stdout.slice(0, request.prefixBytes), entries };
  } finally {
    if (!request.guard.signal.aborted) {
      await lease.sandbox.process.executeCommand(shellCommand(["rm", "-f", "--", archive])).catch(() => undefined);
    }
  }
}
