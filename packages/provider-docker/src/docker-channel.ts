import { PassThrough } from "node:stream";
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
import { runExec } from "./run-exec.js";

const STDERR_TAIL = 16 * 1024;
const CONNECTION = "the Docker engine (docker info)";

/** The shared transfer code's view of a container: scripts are execs, archives stream on stdout. */
export class DockerChannel implements SandboxChannel {
  readonly connection = CONNECTION;

  constructor(private readonly sandbox: LeaseSandbox) {}

  get root(): string {
    return this.sandbox.root;
  }

  get home(): string {
    return this.sandbox.home;
  }

  get owner(): { uid: number; gid: number } {
    return { uid: this.sandbox.uid, gid: this.sandbox.gid };
  }

  assertUsable(what: string): void {
    this.sandbox.assertUsable(what);
  }

  async runScript(request: ScriptRequest): Promise<number> {
    const outcome = await runExec(this.sandbox, {
      argv: ["/bin/sh", "-c", request.script, request.name, ...request.arguments],
      directory: "/",
      onStdout: request.onStdout,
      onStderr: request.onStderr,
      guard: request.guard,
      what: request.what,
      ...(request.feed === undefined ? {} : { feed: request.feed }),
    });
    return outcome.status;
  }

  archive(request: ArchiveRequest): Promise<{ prefix: string; entries: StagedEntry[] }> {
    return archiveFromSandbox(this.sandbox, request);
  }
}

/** Runs a container script that writes a tar stream on stdout ("-") and unpacks it into host staging. */
export async function archiveFromSandbox(
  sandbox: LeaseSandbox,
  request: ArchiveRequest,
): Promise<{ prefix: string; entries: StagedEntry[] }> {
  const archive = new PassThrough();
  const stderr = new TailBuffer(STDERR_TAIL);
  let prefix = Buffer.alloc(0);
  const unpacked = unpackToStaging(archive, request.staging, request.guard.check, undefined, request.meter);
  const staged = unpacked.catch((error: unknown) => {
    const mapped = mapArchiveError(error, request.action, CONNECTION);
    request.guard.fail(mapped);
    archive.resume();
    throw mapped;
  });
  // Awaited only once the exec succeeded; a failed exec reports its own error instead.
  staged.catch(() => undefined);
  const outcome = await runExec(sandbox, {
    argv: ["/bin/sh", "-c", request.script, "outpost-download", ...request.arguments("-")],
    directory: "/",
    onStdout: (chunk) => {
      if (prefix.length < request.prefixBytes) {
        const needed = request.prefixBytes - prefix.length;
        prefix = Buffer.concat([prefix, chunk.subarray(0, needed)]);
        chunk = chunk.subarray(needed);
        if (chunk.length === 0) return;
      }
      if (!archive.write(chunk)) return new Promise<void>((resolve) => archive.once("drain", resolve));
    },
    onStderr: (chunk) => stderr.push(chunk),
    guard: request.guard,
    what: request.action,
  }).catch(async (error: unknown) => {
    archive.destroy();
    throw error;
  });
  if (outcome.status !== 0) {
    archive.destroy();
    throw sandboxRefusal(outcome.status, stderr.text(), request.action);
  }
  archive.end();
  return { prefix: prefix.toString("latin1"), entries: await staged };
}
