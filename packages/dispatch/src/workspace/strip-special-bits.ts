import { chmod, lstat } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { runHostProcess } from "../process/run-host-process.js";

const SPECIAL_BITS = 0o6000;

/**
 * After a sandbox that wrote the host worktree itself (host or mounted placement) has ended: removes every
 * setuid and setgid bit under `directory` (its `.git` aside) and returns the paths it took them from. A
 * container may chmod u+s its own files, and those files would keep the bit on the host, where Outpost or
 * the user may run as root; git records no such bit, so nothing of the work is lost. Nothing is followed:
 * `find` lists without following links and a link is never changed; the sandbox has ended (its processes
 * and container are gone), so nothing swaps an entry between the look and the change.
 */
export async function stripSpecialBits(directory: string, signal?: AbortSignal): Promise<string[]> {
  const found = await runHostProcess({
    executable: "find",
    arguments: [".", "-path", "./.git", "-prune", "-o", "-perm", "/6000", "(", "-type", "f", "-o", "-type", "d", ")", "-print0"],
    directory,
    // find's complaints in English whatever the user's locale: a vanished name is told by its words.
    variables: { LC_ALL: "C" },
    deadlineMs: 600_000,
    signal,
    what: "Looking for setuid and setgid files in the worktree",
  });
  // Unreadable corners make find exit 1 after listing the rest; a listing it could not start is a failure.
  // A file that vanished between find's readdir and its stat (a journal's temporary file under .outpost) is
  // no special file left behind, so those lines alone are no failure.
  if (found.status !== 0 && found.stdout === "" && !onlyVanishedFiles(found.stderr))
    throw new OutpostError(
      "workspace",
      `Could not look for setuid and setgid files in ${directory} (find exit ${found.status}): ${found.stderr.trim().slice(-300)}. ` +
        `Check that find is installed and the worktree is readable; remove such bits by hand (chmod u-s,g-s).`,
      { details: { directory } },
    );
  const stripped: string[] = [];
  for (const relative of found.stdout.split("\0").filter(Boolean)) {
    const path = join(directory, relative);
    const stats = await lstat(path).catch(() => undefined);
    if (stats === undefined || stats.isSymbolicLink() || (stats.mode & SPECIAL_BITS) === 0) continue;
    await chmod(path, stats.mode & 0o7777 & ~SPECIAL_BITS);
    stripped.push(relative.replace(/^\.\//, ""));
  }
  if (found.stdout.length >= 1024 * 1024 && stripped.length > 0) return [...stripped, ...(await stripSpecialBits(directory, signal))];
  return stripped;
}

/** True when every line find complained with is about an entry that disappeared while it walked. */
function onlyVanishedFiles(stderr: string): boolean {
  const lines = stderr.split("\n").filter((line) => line.trim() !== "");
  return lines.length > 0 && lines.every((line) => line.endsWith(": No such file or directory"));
}
