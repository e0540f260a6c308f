import { isAbsolute, resolve } from "node:path";
import { OutpostError } from "@outpost/core";
import { findRepository } from "../git/repository.js";
import { breakFileLock, describeHolder } from "../workspace/file-lock.js";
import { lockPath } from "../workspace/outpost-directory.js";

export interface BreakLockOptions {
  /** Path inside the checkout; default the process's cwd. */
  readonly repository?: string;
  /** A lock's name under `.outpost/locks` (e.g. `integrate-main`, without `.lock`) or its path. */
  readonly lock: string;
  /** Also remove a lock whose holder is judged alive (the user says it is not an outpost run any more). */
  readonly force?: boolean;
}

export interface BrokenLock {
  readonly path: string;
  /** Who held it, for the user. */
  readonly holder: string;
  /** Whether its holder was judged gone (dead, or silent past the renewal window). */
  readonly stale: boolean;
}

/**
 * Breaks a lock: `outpost unlock`. A lock whose holder is gone is removed at once; one whose holder looks alive
 * is refused with code `conflict` unless `force`; no lock there is code `configuration`.
 */
export async function breakLock(options: BreakLockOptions): Promise<BrokenLock> {
  const path = options.lock.endsWith(".lock")
    ? resolve(process.cwd(), options.lock)
    : lockPath((await findRepository(options.repository ?? process.cwd())).root, options.lock);
  if (!isAbsolute(path)) throw new OutpostError("configuration", `The lock ${options.lock} is not a path or a lock name.`);
  const outcome = await breakFileLock(path, options.force === true);
  const holder = outcome.holder ? describeHolder(outcome.holder) : "nobody";
  if (!outcome.holder)
    throw new OutpostError("configuration", `There is no lock ${path}. List the locks with \`ls .outpost/locks\`.`, {
      details: { lock: path },
    });
  if (!outcome.removed)
    throw new OutpostError(
      "conflict",
      `The lock ${path} is held by ${holder}, which looks alive. If it is not an outpost run any more, break it with \`outpost unlock ${options.lock} --force\`.`,
      { details: { lock: path } },
    );
  return { path, holder, stale: outcome.stale };
}
