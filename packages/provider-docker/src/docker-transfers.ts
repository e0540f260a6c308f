import { rm } from "node:fs/promises";
import { join, posix } from "node:path";
import { PassThrough, type Duplex } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { TransferOptions } from "@outpost/core";
import { CREATE_TAR, EXTRACT_TAR } from "./container-scripts.js";
import { containerRefusal } from "./container-refusal.js";
import { mapArchiveError } from "./map-archive-error.js";
import { commitStagedDirectory, commitStagedFile, createStaging } from "./host-commit.js";
import { scanHostTree, type HostTreeEntry, resolveTransferPath, TailBuffer } from "@outpost/plugin-utils";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { OperationGuard } from "./operation-guard.js";
import { runExec } from "./run-exec.js";
import { packHostEntries } from "./tar-pack.js";
import { unpackToStaging, type StagedEntry } from "./tar-unpack.js";

const STDERR_TAIL = 16 * 1024;

export interface ExtractRequest {
  /** Sandbox directory the archive is extracted in, and the directory it may not leave through a link. */
  readonly directory: string;
  readonly anchor: string;
  readonly entries: readonly HostTreeEntry[];
  readonly name: (entry: HostTreeEntry) => string;
  /** Archive paths whose SHA-256 the container prints after extraction, in this order. */
  readonly verify?: readonly string[];
  readonly guard: OperationGuard;
  readonly action: string;
}

/** Streams host entries into one `tar -x` inside the container; returns the verification hashes. */
export async function extractInSandbox(sandbox: LeaseSandbox, request: ExtractRequest): Promise<string[]> {
  const directories = new Set<string>();
  for (const entry of request.entries) {
    const name = request.name(entry);
    const parts = name.split("/");
    const last = entry.kind === "directory" ? parts.length : parts.length - 1;
    for (let index = 1; index <= last; index++) directories.add(parts.slice(0, index).join("/"));
  }
  const lines = [...[...directories].map((path) => `D${path}`), ...(request.verify ?? []).map((path) => `V${path}`)];
  const stdout: Buffer[] = [];
  const stderr = new TailBuffer(STDERR_TAIL);
  const { archive, finished } = packHostEntries(request.entries, {
    name: request.name,
    uid: sandbox.uid,
    gid: sandbox.gid,
    check: request.guard.check,
  });
  const outcome = await runExec(sandbox.container, {
    argv: ["/bin/sh", "-c", EXTRACT_TAR, "outpost-upload", request.directory, request.anchor],
    directory: "/",
    onStdout: (chunk) => void stdout.push(chunk),
    onStderr: (chunk) => stderr.push(chunk),
    guard: request.guard,
    what: request.action,
    feed: async (stdin: Duplex) => {
      stdin.write(`${lines.join("\n")}${lines.length > 0 ? "\n" : ""}\n`);
      await pipeline(archive, stdin);
      await finished;
    },
  });
  if (outcome.status !== 0) {
    archive.destroy();
    throw containerRefusal(outcome.status, stderr.text(), request.action);
  }
  await finished;
  return Buffer.concat(stdout)
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^\\/, "").slice(0, 64));
}

/** Host file or directory contents → sandbox, as one tar stream. */
export async function uploadToSandbox(
  sandbox: LeaseSandbox,
  source: string,
  destination: string,
  options?: TransferOptions,
): Promise<void> {
  sandbox.assertUsable("upload files");
  const guard = new OperationGuard(options ?? {}, `The upload of ${JSON.stringify(source)}`);
  try {
    const target = resolveTransferPath(sandbox, destination, "upload destination");
    const tree = await scanHostTree(source, guard.check);
    const single = posix.basename(target.path);
    await extractInSandbox(sandbox, {
      directory: tree.kind === "directory" ? target.path : posix.dirname(target.path),
      anchor: target.anchor,
      entries: tree.entries,
      name: tree.kind === "directory" ? (entry) => entry.path : () => single,
      guard,
      action: `upload ${JSON.stringify(source)} to ${JSON.stringify(destination)}`,
    });
  } finally {
    guard.dispose();
  }
}

export interface ArchiveRequest {
  readonly script: string;
  readonly arguments: readonly string[];
  readonly feed?: (stdin: Duplex) => Promise<void>;
  /** Bytes before the tar stream (a kind marker) to hand to `prefix`. */
  readonly prefixBytes: number;
  readonly staging: string;
  readonly guard: OperationGuard;
  readonly action: string;
}

/** Runs a container script that writes a tar stream and unpacks it into host staging. */
export async function archiveFromSandbox(
  sandbox: LeaseSandbox,
  request: ArchiveRequest,
): Promise<{ prefix: string; entries: StagedEntry[] }> {
  const archive = new PassThrough();
  const stderr = new TailBuffer(STDERR_TAIL);
  let prefix = Buffer.alloc(0);
  const unpacked = unpackToStaging(archive, request.staging, request.guard.check);
  const staged = unpacked.catch((error: unknown) => {
    const mapped = mapArchiveError(error, request.action);
    request.guard.fail(mapped);
    archive.resume();
    throw mapped;
  });
  // Awaited only once the exec succeeded; a failed exec reports its own error instead.
  staged.catch(() => undefined);
  const outcome = await runExec(sandbox.container, {
    argv: ["/bin/sh", "-c", request.script, "outpost-download", ...request.arguments],
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
    ...(request.feed === undefined ? {} : { feed: request.feed }),
  }).catch(async (error: unknown) => {
    archive.destroy();
    throw error;
  });
  if (outcome.status !== 0) {
    archive.destroy();
    throw containerRefusal(outcome.status, stderr.text(), request.action);
  }
  archive.end();
  return { prefix: prefix.toString("latin1"), entries: await staged };
}

/** Sandbox file or directory contents → host, staged and checked before anything is put in place. */
export async function downloadFromSandbox(
  sandbox: LeaseSandbox,
  source: string,
  destination: string,
  options?: TransferOptions,
): Promise<void> {
  sandbox.assertUsable("download files");
  const guard = new OperationGuard(options ?? {}, `The download of ${JSON.stringify(source)}`);
  let staging: string | undefined;
  try {
    const origin = resolveTransferPath(sandbox, source, "download source");
    staging = await createStaging(destination);
    const { prefix, entries } = await archiveFromSandbox(sandbox, {
      script: CREATE_TAR,
      arguments: [origin.path, origin.anchor],
      prefixBytes: 1,
      staging,
      guard,
      action: `download ${JSON.stringify(source)} to ${JSON.stringify(destination)}`,
    });
    guard.check();
    if (prefix === "d") {
      await commitStagedDirectory(staging, entries, destination);
    } else {
      const file = entries[0];
      if (file === undefined) throw containerRefusal(92, `${source} produced no file`, `download ${JSON.stringify(source)}`);
      await commitStagedFile(join(staging, file.path), file, destination);
    }
  } finally {
    guard.dispose();
    if (staging !== undefined) await rm(staging, { recursive: true, force: true });
  }
}
