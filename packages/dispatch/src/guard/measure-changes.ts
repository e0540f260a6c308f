import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { gitStatus } from "../git/run-git.js";

/** One path the work changed, with its added and deleted lines (0 and 0 for a binary file or a link). */
export interface ChangedPath {
  readonly path: string;
  readonly added: number;
  readonly deleted: number;
}

/**
 * What the work changed in `directory` against `baseline`: tracked changes (committed or not) from one
 * `git diff --numstat`, plus the untracked, non-ignored files, whose lines are counted on disk without
 * following any link the sandbox planted.
 */
export async function measureChanges(directory: string, baseline: string, signal?: AbortSignal): Promise<ChangedPath[]> {
  const [diff, untracked] = await Promise.all([
    gitStatus(directory, ["diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", baseline, "--"], { signal }),
    gitStatus(directory, ["ls-files", "-z", "--others", "--exclude-standard"], { signal }),
  ]);
  for (const result of [diff, untracked])
    if (result.status !== 0)
      throw new OutpostError("workspace", `Could not measure the work against ${baseline} in ${directory}: ${result.stderr.trim()}`, {
        details: { directory, baseline },
      });
  const changed: ChangedPath[] = [];
  for (const record of diff.stdout.split("\0")) {
    const [added, deleted, path] = record.split("\t");
    if (path === undefined || path === "") continue;
    changed.push({ path, added: count(added), deleted: count(deleted) });
  }
  for (const path of untracked.stdout.split("\0").filter(Boolean))
    changed.push({ path, added: await linesOf(join(directory, path)), deleted: 0 });
  return changed;
}

function count(field: string | undefined): number {
  const value = Number(field);
  return Number.isInteger(value) ? value : 0;
}

/** Newlines of a regular file (plus one for an unterminated last line); a link or anything else has none. */
async function linesOf(file: string): Promise<number> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return 0;
  try {
    if (!(await handle.stat()).isFile()) return 0;
    let lines = 0;
    let last = 10;
    const buffer = Buffer.alloc(1 << 16);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      for (let index = 0; index < bytesRead; index += 1) if (buffer[index] === 10) lines += 1;
      last = buffer[bytesRead - 1]!;
    }
    return last === 10 ? lines : lines + 1;
  } finally {
    await handle.close();
  }
}
