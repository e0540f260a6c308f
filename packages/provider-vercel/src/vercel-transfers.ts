import { rm } from "node:fs/promises";
import { join, posix } from "node:path";
import type { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { TransferOptions } from "@outpost/core";
import { commitStagedDirectory, commitStagedFile, createStaging } from "./host-commit.js";
import { scanHostTree, type HostEntry } from "./host-tree.js";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapArchiveError } from "./map-archive-error.js";
import { mapVercelError } from "./map-vercel-error.js";
import { OperationGuard } from "./operation-guard.js";
import { runInSandbox } from "./run-in-sandbox.js";
import { sandboxRefusal } from "./sandbox-refusal.js";
import { CREATE_TAR, EXTRACT_TAR } from "./sandbox-scripts.js";
import { sandboxPath } from "./sandbox-path.js";
import { TailBuffer } from "./tail-buffer.js";
import { packHostEntries } from "./tar-pack.js";
import { unpackToStaging, type StagedEntry } from "./tar-unpack.js";

const STDERR_TAIL = 16 * 1024;

export interface ExtractRequest {
  /** Sandbox directory the archive is extracted in, and the directory it may not leave through a link. */
  readonly directory: string;
  readonly anchor: string;
  readonly entries: readonly HostEntry[];
  readonly name: (entry: HostEntry) => string;
  /** Archive paths whose SHA-256 the sandbox prints after extraction, in this order. */
  readonly verify?: readonly string[];
  readonly guard: OperationGuard;
  readonly action: string;
}

/** Sends host entries as one tar (stdin frames) to one `tar -x` in the sandbox; returns the verification hashes. */
export async function extractInSandbox(lease: LeaseSandbox, request: ExtractRequest): Promise<string[]> {
  const directories = new Set<string>();
  for (const entry of request.entries) {
    const parts = request.name(entry).split("/");
    const last = entry.kind === "directory" ? parts.length : parts.length - 1;
    for (let index = 1; index <= last; index++) directories.add(parts.slice(0, index).join("/"));
  }
  const lines = [...[...directories].map((path) => `D${path}`), ...(request.verify ?? []).map((path) => `V${path}`)];
  let stdout = "";
  const stderr = new TailBuffer(STDERR_TAIL);
  const { archive, finished } = packHostEntries(request.entries, { name: request.name, check: request.guard.check });
  const outcome = await runInSandbox(lease, {
    argv: ["/bin/sh", "-c", EXTRACT_TAR, "outpost-upload", request.directory, request.anchor],
    directory: "/",
    onStdout: (text) => void (stdout += text),
    onStderr: (text) => stderr.push(Buffer.from(text)),
    guard: request.guard,
    what: request.action,
    feed: async (stdin: Writable) => {
      stdin.write(`${lines.join("\n")}${lines.length > 0 ? "\n" : ""}\n`);
      await pipeline(archive, stdin);
      await finished;
    },
  });
  if (outcome.status !== 0) {
    archive.destroy();
    throw sandboxRefusal(outcome.status, stderr.text(), request.action);
  }
  await finished;
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^\\/, "").slice(0, 64));
}

/** Host file or directory contents → sandbox. */
export async function uploadToSandbox(lease: LeaseSandbox, source: string, destination: string, options?: TransferOptions): Promise<void> {
  lease.assertUsable("upload files");
  const guard = new OperationGuard(options ?? {}, `The upload of ${JSON.stringify(source)}`);
  try {
    const target = sandboxPath(lease.root, lease.home, destination, "upload destination");
    const tree = await scanHostTree(source, guard.check);
    const single = posix.basename(target.path);
    await extractInSandbox(lease, {
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
  /** Script arguments; `archive` is replaced by the sandbox path of the archive file. */
  readonly arguments: (archive: string) => readonly string[];
  readonly staging: string;
  readonly guard: OperationGuard;
  readonly action: string;
}

/**
 * Runs a sandbox script that writes a tar file (its stdout is a short marker), reads that file through
 * the SDK's file API and unpacks it into host staging; the file is removed afterwards.
 */
export async function archiveFromSandbox(
  lease: LeaseSandbox,
  request: ArchiveRequest,
): Promise<{ prefix: string; entries: StagedEntry[] }> {
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
      throw request.guard.error ?? mapArchiveError(error, request.action);
    });
    return { prefix: stdout, entries };
  } finally {
    if (!request.guard.signal.aborted) {
      await lease.sandbox.runCommand({ cmd: "rm", args: ["-f", "--", archive] }).catch(() => undefined);
    }
  }
}

/** Sandbox file or directory contents → host, staged and checked before anything is put in place. */
export async function downloadFromSandbox(
  lease: LeaseSandbox,
  source: string,
  destination: string,
  options?: TransferOptions,
): Promise<void> {
  lease.assertUsable("download files");
  const guard = new OperationGuard(options ?? {}, `The download of ${JSON.stringify(source)}`);
  let staging: string | undefined;
  try {
    const origin = sandboxPath(lease.root, lease.home, source, "download source");
    staging = await createStaging(destination);
    const { prefix, entries } = await archiveFromSandbox(lease, {
      script: CREATE_TAR,
      arguments: (archive) => [origin.path, origin.anchor, archive],
      staging,
      guard,
      action: `download ${JSON.stringify(source)} to ${JSON.stringify(destination)}`,
    });
    guard.check();
    if (prefix === "d") {
      await commitStagedDirectory(staging, entries, destination);
    } else {
      const file = entries[0];
      if (file === undefined) throw sandboxRefusal(92, `${source} produced no file`, `download ${JSON.stringify(source)}`);
      await commitStagedFile(join(staging, file.path), file, destination);
    }
  } finally {
    guard.dispose();
    if (staging !== undefined) await rm(staging, { recursive: true, force: true });
  }
}
