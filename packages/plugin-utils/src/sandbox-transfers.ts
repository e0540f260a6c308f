import { rm } from "node:fs/promises";
import { join, posix } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Pack } from "tar-stream";
import type { TransferOptions } from "@outpost/core";
import { commitStagedFile, commitStagingAsDirectory, createStaging } from "./host-commit.js";
import { scanHostTree, type HostTreeEntry } from "./host-tree.js";
import { OperationGuard } from "./operation-guard.js";
import type { SandboxChannel } from "./sandbox-channel.js";
import { resolveTransferPath } from "./sandbox-path.js";
import { sandboxRefusal } from "./sandbox-refusal.js";
import { TailBuffer } from "./tail-buffer.js";
import { hostTarCanPack, packWithHostTar } from "./host-tar-pack.js";
import { assertNoNewlineInNames, packHostEntries } from "./tar-pack.js";
import { CREATE_TAR, EXTRACT_TAR } from "./transfer-scripts.js";

const STDERR_TAIL = 16 * 1024;

export interface ExtractRequest {
  /** Sandbox directory the archive is extracted in, and the directory it may not leave through a link. */
  readonly directory: string;
  readonly anchor: string;
  readonly entries: readonly HostTreeEntry[];
  readonly name: (entry: HostTreeEntry) => string;
  /**
   * The host directory every entry lies in under its own path, named by that path in the archive: such a
   * request may be packed by the host's GNU tar (packWithHostTar) when it has many entries.
   */
  readonly top?: string;
  /** Archive paths whose SHA-256 the sandbox prints after extraction, in this order. */
  readonly verify?: readonly string[];
  readonly guard: OperationGuard;
  readonly action: string;
}

/** Sends host entries as one tar to one `tar -x` in the sandbox (EXTRACT_TAR); returns the verification hashes. */
export async function extractInSandbox(channel: SandboxChannel, request: ExtractRequest): Promise<string[]> {
  const directories = new Set<string>();
  for (const entry of request.entries) {
    const parts = request.name(entry).split("/");
    const last = entry.kind === "directory" ? parts.length : parts.length - 1;
    for (let index = 1; index <= last; index++) directories.add(parts.slice(0, index).join("/"));
  }
  const lines = [...[...directories].map((path) => `D${path}`), ...(request.verify ?? []).map((path) => `V${path}`)];
  const stdout: Buffer[] = [];
  const stderr = new TailBuffer(STDERR_TAIL);
  const { archive, finished } = await packEntries(channel, request);
  const status = await channel.runScript({
    script: EXTRACT_TAR,
    name: "outpost-upload",
    arguments: [request.directory, request.anchor],
    onStdout: (chunk) => void stdout.push(chunk),
    onStderr: (chunk) => stderr.push(chunk),
    guard: request.guard,
    what: request.action,
    feed: async (stdin) => {
      stdin.write(`${lines.join("\n")}${lines.length > 0 ? "\n" : ""}\n`);
      await pipeline(archive, stdin);
      await finished;
    },
  });
  if (status !== 0) {
    archive.destroy();
    throw sandboxRefusal(status, stderr.text(), request.action);
  }
  await finished;
  return Buffer.concat(stdout)
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^\\/, "").slice(0, 64));
}

// Below this many entries tar-stream packs faster than a tar process starts.
const HOST_TAR_ENTRIES = 256;

async function packEntries(
  channel: SandboxChannel,
  request: ExtractRequest,
): Promise<{ archive: Readable | Pack; finished: Promise<void> }> {
  const owner = channel.owner === undefined ? {} : { uid: channel.owner.uid, gid: channel.owner.gid };
  if (request.top !== undefined && request.entries.length >= HOST_TAR_ENTRIES && (await hostTarCanPack())) {
    assertNoNewlineInNames(request.entries);
    return packWithHostTar(request.top, request.entries, { ...owner, signal: request.guard.signal });
  }
  return packHostEntries(request.entries, { name: request.name, ...owner, check: request.guard.check });
}

/** Host file or directory contents → sandbox, as one tar. The host tree is scanned (and refused) first. */
export async function uploadToSandbox(
  channel: SandboxChannel,
  source: string,
  destination: string,
  options?: TransferOptions,
): Promise<void> {
  channel.assertUsable("upload files");
  const guard = new OperationGuard(options ?? {}, `The upload of ${JSON.stringify(source)}`);
  try {
    const target = resolveTransferPath(channel, destination, "upload destination");
    const tree = await scanHostTree(source, guard.check);
    const single = posix.basename(target.path);
    await extractInSandbox(channel, {
      directory: tree.kind === "directory" ? target.path : posix.dirname(target.path),
      anchor: target.anchor,
      entries: tree.entries,
      name: tree.kind === "directory" ? (entry) => entry.path : () => single,
      ...(tree.kind === "directory" ? { top: source } : {}),
      guard,
      action: `upload ${JSON.stringify(source)} to ${JSON.stringify(destination)}`,
    });
  } finally {
    guard.dispose();
  }
}

/** Sandbox file or directory contents → host, staged and checked before anything is put in place. */
export async function downloadFromSandbox(
  channel: SandboxChannel,
  source: string,
  destination: string,
  options?: TransferOptions,
): Promise<void> {
  channel.assertUsable("download files");
  const guard = new OperationGuard(options ?? {}, `The download of ${JSON.stringify(source)}`);
  let staging: string | undefined;
  try {
    const origin = resolveTransferPath(channel, source, "download source");
    staging = await createStaging(destination);
    const { prefix, entries } = await channel.archive({
      script: CREATE_TAR,
      arguments: (archive) => [origin.path, origin.anchor, archive],
      prefixBytes: 1,
      staging,
      guard,
      action: `download ${JSON.stringify(source)} to ${JSON.stringify(destination)}`,
    });
    guard.check();
    if (prefix === "d") {
      await commitStagingAsDirectory(staging, entries, destination);
    } else {
      const file = entries[0];
      if (file === undefined) throw sandboxRefusal(92, `${source} produced no file`, `download ${JSON.stringify(source)}`);
      commitStagedFile(join(staging, file.path), destination);
    }
  } finally {
    guard.dispose();
    if (staging !== undefined) await rm(staging, { recursive: true, force: true });
  }
}
