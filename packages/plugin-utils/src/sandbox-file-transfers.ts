import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readlink, rm } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { normalizeTreePath } from "./archive-path.js";
import { declaredMeter } from "./declared-meter.js";
import type { FileManifestEntry, FileTransfers, TransferOptions } from "@outpost/core";
import { commitStagedDirectory, createStaging } from "./host-commit.js";
import type { HostTreeEntry } from "./host-tree.js";
import { assertLinkStaysInside } from "./link-target.js";
import { parseManifestOutput } from "./manifest-output.js";
import { OperationGuard } from "./operation-guard.js";
import type { SandboxChannel } from "./sandbox-channel.js";
import { resolveTransferPath } from "./sandbox-path.js";
import { sandboxRefusal } from "./sandbox-refusal.js";
import { extractInSandbox } from "./sandbox-transfers.js";
import { TailBuffer } from "./tail-buffer.js";
import { CREATE_TAR_OF_LIST, MANIFEST } from "./transfer-scripts.js";
import { transferMode } from "./transfer-mode.js";

/**
 * `fileTransfers` for any provider that gives a `SandboxChannel`: the manifest (SHA-256 computed inside the
 * sandbox, one script per argument chunk) and batches that move only the listed entries, checked against
 * the manifest on both sides.
 */
export class SandboxFileTransfers implements FileTransfers {
  constructor(private readonly sandbox: SandboxChannel) {}

  async manifest(source: string, paths: readonly string[], options?: TransferOptions): Promise<FileManifestEntry[]> {
    this.sandbox.assertUsable("list a manifest");
    const guard = new OperationGuard(options ?? {}, "Building the manifest");
    try {
      const origin = resolveTransferPath(this.sandbox, source, "manifest source");
      const relative = paths.map((path) => {
        const clean = normalizeTreePath(path, "manifest path");
        return clean === "" ? "." : `./${clean}`;
      });
      if (relative.length === 0) return [];
      const found = new Map<string, FileManifestEntry>();
      for (const chunk of argumentChunks(relative)) {
        for (const entry of await this.manifestChunk(origin.path, chunk, guard, source)) found.set(entry.path, entry);
      }
      return [...found.values()].sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
    } finally {
      guard.dispose();
    }
  }

  private async manifestChunk(
    origin: string,
    paths: readonly string[],
    guard: OperationGuard,
    source: string,
  ): Promise<FileManifestEntry[]> {
    const stdout: Buffer[] = [];
    const stderr = new TailBuffer(16 * 1024);
    const status = await this.sandbox.runScript({
      script: MANIFEST,
      name: "outpost-manifest",
      arguments: [origin, ...paths],
      onStdout: (chunk) => void stdout.push(chunk),
      onStderr: (chunk) => stderr.push(chunk),
      guard,
      what: `list ${JSON.stringify(source)} in the sandbox`,
    });
    if (status !== 0) throw sandboxRefusal(status, stderr.text(), `list ${JSON.stringify(source)}`);
    return parseManifestOutput(Buffer.concat(stdout).toString("utf8"));
  }

  async downloadBatch(
    source: string,
    entries: readonly FileManifestEntry[],
    destination: string,
    options?: TransferOptions,
  ): Promise<void> {
    this.sandbox.assertUsable("download files");
    const paths = checkEntries(entries);
    if (paths.length === 0) return;
    const guard = new OperationGuard(options ?? {}, "The batch download");
    let staging: string | undefined;
    try {
      const origin = resolveTransferPath(this.sandbox, source, "download source");
      staging = await createStaging(destination);
      const staged = [];
      const meter = declaredMeter(entries);
      // Paths travel as arguments; large batches are split to stay far below the kernel's ARG_MAX.
      for (const chunk of argumentChunks(paths.map((path) => `./${path}`))) {
        const part = await this.sandbox.archive({
          script: CREATE_TAR_OF_LIST,
          arguments: (archive) => [origin.path, archive, ...chunk],
          prefixBytes: 0,
          staging,
          guard,
          meter,
          action: `download ${entries.length} entries from ${JSON.stringify(source)}`,
        });
        staged.push(...part.entries);
      }
      const byPath = new Map(staged.map((entry) => [entry.path, entry]));
      for (const [index, entry] of entries.entries()) {
        const got = byPath.get(paths[index]!);
        if (got === undefined || got.kind !== entry.kind)
          throw mismatch(entry, got === undefined ? "it is missing in the sandbox" : `it is a ${got.kind} now`);
        if (got.sha256 !== entry.sha256) throw mismatch(entry, "its SHA-256 differs from the manifest");
      }
      const wanted = new Set(paths);
      await commitStagedDirectory(
        staging,
        staged.filter((entry) => wanted.has(entry.path)),
        destination,
      );
    } finally {
      guard.dispose();
      if (staging !== undefined) await rm(staging, { recursive: true, force: true });
    }
  }

  async uploadBatch(source: string, entries: readonly FileManifestEntry[], destination: string, options?: TransferOptions): Promise<void> {
    this.sandbox.assertUsable("upload files");
    const paths = checkEntries(entries);
    if (paths.length === 0) return;
    const guard = new OperationGuard(options ?? {}, "The batch upload");
    try {
      const target = resolveTransferPath(this.sandbox, destination, "upload destination");
      const hostEntries: HostTreeEntry[] = [];
      for (const [index, entry] of entries.entries()) {
        guard.check();
        hostEntries.push(await hostEntry(source, paths[index]!, entry));
      }
      const files = hostEntries.filter((entry) => entry.kind === "file");
      const hashes = await extractInSandbox(this.sandbox, {
        directory: target.path,
        anchor: target.anchor,
        entries: hostEntries,
        name: (entry) => entry.path,
        top: source,
        verify: files.map((entry) => entry.path),
        guard,
        action: `upload ${entries.length} entries to ${JSON.stringify(destination)}`,
      });
      const expected = new Map(entries.map((entry, index) => [paths[index]!, entry]));
      files.forEach((file, index) => {
        const entry = expected.get(file.path)!;
        if (hashes[index] !== entry.sha256) throw mismatch(entry, "its SHA-256 in the sandbox differs from the manifest");
      });
    } finally {
      guard.dispose();
    }
  }
}

const ARGUMENT_BYTES = 256 * 1024;

function argumentChunks(values: readonly string[]): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const value of values) {
    const bytes = Buffer.byteLength(value) + 1;
    if (current.length > 0 && size + bytes > ARGUMENT_BYTES) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(value);
    size += bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function checkEntries(entries: readonly FileManifestEntry[]): string[] {
  return entries.map((entry) => {
    const path = normalizeTreePath(entry.path, "manifest entry");
    if (path === "")
      throw new OutpostError("workspace", "Refused a manifest entry with an empty path. Give each entry a path relative to the source.");
    if (path.includes("\n"))
      throw new OutpostError("workspace", `Refused manifest entry ${JSON.stringify(path)}: names with a newline cannot be transferred.`);
    if (entry.kind !== "file" && entry.kind !== "link") {
      throw new OutpostError(
        "workspace",
        `Refused manifest entry ${JSON.stringify(entry.path)} of kind ${JSON.stringify(entry.kind)}. Only "file" and "link" entries can be moved.`,
      );
    }
    return path;
  });
}

/** The host side of one batch entry, checked against the manifest before anything is sent. */
async function hostEntry(source: string, path: string, entry: FileManifestEntry): Promise<HostTreeEntry> {
  const parts = path.split("/");
  for (let index = 1; index < parts.length; index++) {
    const info = await lstat(join(source, ...parts.slice(0, index))).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      throw new OutpostError(
        "workspace",
        `Refused ${JSON.stringify(path)}: ${JSON.stringify(parts.slice(0, index).join("/"))} is a symbolic link, and paths are never followed through links.`,
        {
          details: { path },
        },
      );
    }
  }
  const full = join(source, path);
  const info = await lstat(full).catch(() => undefined);
  if (entry.kind === "link") {
    if (!info?.isSymbolicLink()) throw mismatch(entry, "it is not a symbolic link on the host");
    const target = await readlink(full);
    assertLinkStaysInside(path, target);
    if (createHash("sha256").update(target).digest("hex") !== entry.sha256) throw mismatch(entry, "its target changed");
    return { path, kind: "link", mode: 0o777, size: 0, mtime: info.mtime, source: full, target };
  }
  if (!info?.isFile()) throw mismatch(entry, "it is not a regular file on the host");
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(full)) hash.update(chunk as Buffer);
  if (hash.digest("hex") !== entry.sha256) throw mismatch(entry, "its SHA-256 on the host differs from the manifest");
  return { path, kind: "file", mode: transferMode(entry.mode), size: info.size, mtime: info.mtime, source: full };
}

function mismatch(entry: FileManifestEntry, problem: string): OutpostError {
  return new OutpostError("conflict", `Refused to move ${JSON.stringify(entry.path)}: ${problem}. Build a fresh manifest and try again.`, {
    details: { path: entry.path, sha256: entry.sha256 },
  });
}
