import { constants, type BigIntStats, type Stats } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { OutpostError, type OutpostErrorCode } from "@outpost/core";
import { outpostDirectory } from "./outpost-directory.js";

/**
 * Why a file or directory under `.outpost` might not be the host user's own writing; undefined when only
 * the host user could have written it. A sandbox running as another user, or anyone sharing a writable
 * group or the whole machine, must not decide what the host reads or runs later. Group-writable is
 * accepted for the user's own group only (a umask of 002 on systems with a private group per user).
 */
export function writerProblem(stats: Stats | BigIntStats): string | undefined {
  if (stats.isSymbolicLink()) return "it is a symbolic link";
  const uid = process.geteuid?.();
  const gid = process.getegid?.();
  const mode = Number(stats.mode);
  if (uid !== undefined && Number(stats.uid) !== uid) return `it belongs to uid ${Number(stats.uid)}, not to uid ${uid} that runs Outpost`;
  if (mode & 0o002) return "every user can write it";
  if (mode & 0o020 && gid !== undefined && Number(stats.gid) !== gid) return `group ${Number(stats.gid)} can write it`;
  return undefined;
}

export interface HostFileOptions {
  /** The error code of a refusal (default `configuration`). */
  readonly code?: OutpostErrorCode;
  /** What the file is, for the message ("the activity record"). */
  readonly what: string;
  /** Larger files are refused. */
  readonly maxBytes?: number;
  /** The checkout root: the directories from its `.outpost` down to the file are checked too. */
  readonly root?: string;
}

/** Refuses (as `readHostFile` would) an entry another user could have written; for callers that lstat it themselves. */
export function assertHostWritten(path: string, stats: Stats | BigIntStats, options: HostFileOptions): void {
  const problem = writerProblem(stats);
  if (problem !== undefined) throw refusal(path, problem, options);
}

/**
 * Reads a file the host wrote under `<root>/.outpost` (or that the user put there), refusing it unless it is
 * a regular file the host user alone could have written, on a path of such directories (see
 * `writerProblem`). Absent (ENOENT): undefined.
 */
export async function readHostFile(path: string, options: HostFileOptions): Promise<Buffer | undefined> {
  if (options.root !== undefined) await assertHostDirectories(options.root, join(path, ".."), options);
  let file;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    if (code === "ELOOP") throw refusal(path, "it is a symbolic link", options);
    throw refusal(path, (error as Error).message, options);
  }
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw refusal(path, "it is not a regular file", options);
    const problem = writerProblem(stats);
    if (problem !== undefined) throw refusal(path, problem, options);
    if (options.maxBytes !== undefined && stats.size > options.maxBytes)
      throw refusal(path, `it is larger than ${options.maxBytes} bytes`, options);
    return await file.readFile();
  } finally {
    await file.close();
  }
}

/**
 * Checks each existing directory from `<root>/.outpost` down to `directory` (which must lie inside it):
 * a link or a directory another user could write would let that user swap what the host reads there.
 */
export async function assertHostDirectories(root: string, directory: string, options: HostFileOptions): Promise<void> {
  const top = outpostDirectory(root);
  const below = relative(top, directory);
  if (below.startsWith("..") || below.startsWith(sep)) return;
  let current = top;
  for (const part of ["", ...(below === "" ? [] : below.split(sep))]) {
    current = part === "" ? current : join(current, part);
    const stats = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
      throw refusal(current, error.message, options);
    });
    if (stats === undefined) return;
    if (!stats.isDirectory() && !stats.isSymbolicLink()) throw refusal(current, "it is not a directory", options);
    const problem = writerProblem(stats);
    if (problem !== undefined) throw refusal(current, problem, options);
  }
}

function refusal(path: string, problem: string, options: HostFileOptions): OutpostError {
  return new OutpostError(
    options.code ?? "configuration",
    `Refused to read ${path} (${options.what}): ${problem}, so something other than you may have written it ` +
      `(a sandbox, another user). Check it, then remove it or make it yours alone (chown, chmod go-w).`,
    { details: { path } },
  );
}
