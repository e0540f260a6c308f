import { constants, type BigIntStats, type Stats } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { OutpostError, type OutpostErrorCode } from "../errors/outpost-error.js";

/**
 * Why an entry the host reads back (a file Outpost wrote earlier, under `.outpost`) might not be the host
 * user's own writing; undefined when only that user or root could have written it. A sandbox running as
 * another user, or anyone sharing a writable group or the whole machine, must not decide what the host
 * reads or runs later. Group-writable is accepted for the user's own group only (a umask of 002 on systems
 * with a private group per user). Root may own it: root can write anything anyway.
 */
export function ownershipProblem(stats: Stats | BigIntStats): string | undefined {
  if (stats.isSymbolicLink()) return "it is a symbolic link";
  const uid = process.geteuid?.();
  const gid = process.getegid?.();
  const owner = Number(stats.uid);
  const mode = Number(stats.mode);
  if (uid !== undefined && owner !== uid && owner !== 0)
    return `it belongs to uid ${owner}, not to uid ${uid} that runs Outpost (nor root)`;
  if (mode & 0o002) return "every user can write it";
  if (mode & 0o020 && gid !== undefined && Number(stats.gid) !== gid) return `group ${Number(stats.gid)} can write it`;
  return undefined;
}

export interface HostOwnedOptions {
  /** What the entry is, for the message ("the activity record"). */
  readonly what: string;
  /** The error code of a refusal (default `configuration`). */
  readonly code?: OutpostErrorCode;
}

/** The refusal of an entry the host user alone could not have written, naming it and what to do. */
export function notHostOwned(path: string, problem: string, options: HostOwnedOptions): OutpostError {
  return new OutpostError(
    options.code ?? "configuration",
    `Refused to read ${path} (${options.what}): ${problem}, so something other than you may have written it ` +
      `(a sandbox, another user). Check it, then remove it or make it yours alone (chown, chmod go-w).`,
    { details: { path } },
  );
}

/** Refuses an entry (lstat'ed by the caller) that is a link or another user could have written. */
export function assertHostOwned(path: string, stats: Stats | BigIntStats, options: HostOwnedOptions): void {
  const problem = ownershipProblem(stats);
  if (problem !== undefined) throw notHostOwned(path, problem, options);
}

/**
 * Reads a file the host wrote, refusing it unless it is a regular file (opened without following a link)
 * that only the host user or root could have written. Absent (ENOENT, ENOTDIR): undefined.
 */
export async function readHostOwnedFile(
  path: string,
  options: HostOwnedOptions & { readonly maxBytes?: number },
): Promise<Buffer | undefined> {
  let file;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw notHostOwned(path, code === "ELOOP" ? "it is a symbolic link" : (error as Error).message, options);
  }
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw notHostOwned(path, "it is not a regular file", options);
    assertHostOwned(path, stats, options);
    if (options.maxBytes !== undefined && stats.size > options.maxBytes)
      throw notHostOwned(path, `it is larger than ${options.maxBytes} bytes`, options);
    return await file.readFile();
  } finally {
    await file.close();
  }
}

/**
 * Checks each existing directory from `top` down to `directory` (which must lie inside it; else nothing is
 * checked): a link, or a directory another user could write, would let that user swap what is read there.
 * Stops at the first one that does not exist.
 */
export async function assertHostOwnedDirectories(top: string, directory: string, options: HostOwnedOptions): Promise<void> {
  const below = relative(top, directory);
  if (below.startsWith("..") || below.startsWith(sep)) return;
  let current = top;
  for (const part of ["", ...(below === "" ? [] : below.split(sep))]) {
    current = part === "" ? current : join(current, part);
    const stats = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
      throw notHostOwned(current, error.message, options);
    });
    if (stats === undefined) return;
    if (!stats.isDirectory() && !stats.isSymbolicLink()) throw notHostOwned(current, "it is not a directory", options);
    assertHostOwned(current, stats, options);
  }
}
