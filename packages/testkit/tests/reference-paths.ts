import { lstat, readdir, readlink, realpath } from "node:fs/promises";
import { dirname, join, posix, resolve } from "node:path";
import { OutpostError, isInside, normalizeRelativePath, resolveSandboxPath, type SandboxAnchors } from "@outpost/core";
import type { ReferenceFlaws } from "./provider-reference.js";

/** A sandbox path by core's rule, refused when a link on the way leaves its anchor (flaws switch parts off). */
export async function referenceSandboxPath(
  lease: SandboxAnchors,
  path: string,
  role: "source" | "destination",
  flaws: ReferenceFlaws,
): Promise<string> {
  if (flaws.absolutePathsAnywhere && posix.isAbsolute(path)) return posix.normalize(path);
  if (role === "source" && flaws.downloadFollowsDotDot && !posix.isAbsolute(path)) {
    // Looks only at the links the path names, not at where `..` leads: a missing file is refused as missing.
    const full = resolve(lease.root, path);
    const parts = path.split("/");
    for (let index = 1; index <= parts.length; index++) {
      const prefix = resolve(lease.root, ...parts.slice(0, index));
      if (
        (await lstat(prefix).catch(() => undefined))?.isSymbolicLink() &&
        !isInside(await realpath(lease.root), await realpath(prefix).catch(() => "/"))
      ) {
        throw refused(path, "a link on the way leaves the root");
      }
    }
    if ((await lstat(full).catch(() => undefined)) === undefined) throw refused(path, "it does not exist");
    return full;
  }
  const { path: full, anchor } = resolveSandboxPath(lease, path, `sandbox ${role}`);
  if (role === "source" && flaws.downloadFollowsLinks) return full;
  const realAnchor = await realpath(anchor);
  for (let probe = full; ; probe = dirname(probe)) {
    const real = await realpath(probe).catch(() => undefined);
    if (real !== undefined) {
      if (!isInside(realAnchor, real)) throw refused(path, "a link on the way leaves the root or home");
      return full;
    }
    if (probe === anchor || dirname(probe) === probe) return full;
  }
}

/** The mode bits a transfer carries: permission bits only, unless `transfersKeepSpecialBits`. */
export function travellingMode(mode: number, flaws: ReferenceFlaws): number {
  return mode & (flaws.transfersKeepSpecialBits ? 0o7777 : 0o777);
}

export interface ScannedEntry {
  readonly path: string;
  readonly kind: "directory" | "file" | "link";
  readonly mode: number;
  readonly target?: string;
}

/** A file (one entry, path "") or a directory's entries; refuses absolute or escaping links and special files. */
export async function scanSource(source: string, check: () => void): Promise<{ kind: "file" | "directory"; entries: ScannedEntry[] }> {
  const top = await lstat(source).catch(() => undefined);
  if (top === undefined) throw refused(source, "it does not exist");
  if (top.isSymbolicLink()) throw refused(source, "it is a symbolic link, which is never followed");
  if (top.isFile()) return { kind: "file", entries: [{ path: "", kind: "file", mode: top.mode & 0o7777 }] };
  if (!top.isDirectory()) throw refused(source, "it is not a file or a directory");
  const entries: ScannedEntry[] = [];
  const walk = async (relative: string): Promise<void> => {
    check();
    for (const name of (await readdir(join(source, relative))).sort()) {
      const path = relative === "" ? name : `${relative}/${name}`;
      const stats = await lstat(join(source, path));
      if (stats.isSymbolicLink()) {
        const target = await readlink(join(source, path));
        assertLinkInside(path, target);
        entries.push({ path, kind: "link", mode: 0o777, target });
      } else if (stats.isDirectory()) {
        entries.push({ path, kind: "directory", mode: stats.mode & 0o7777 });
        await walk(path);
      } else if (stats.isFile()) entries.push({ path, kind: "file", mode: stats.mode & 0o7777 });
      else throw refused(path, "it is a special file");
    }
  };
  await walk("");
  return { kind: "directory", entries };
}

export function assertLinkInside(path: string, target: string): void {
  const landing = posix.normalize(posix.join(posix.dirname(path), target));
  if (posix.isAbsolute(target) || landing === ".." || landing.startsWith("../"))
    throw refused(path, `its link target ${target} leaves the tree`);
}

/** Refuses writing `paths` under `base` when an existing link on the way (the last part only for directories) leads outside it. */
export async function assertDestinationSafe(base: string, paths: readonly string[], directories: ReadonlySet<string>): Promise<void> {
  const realBase = await realpath(base).catch(() => undefined);
  if (realBase === undefined) return;
  for (const path of paths) {
    const parts = path.split("/");
    const walked = directories.has(path) ? parts.length : parts.length - 1;
    for (let index = 1; index <= walked; index++) {
      const full = join(base, ...parts.slice(0, index));
      const stats = await lstat(full).catch(() => undefined);
      if (stats === undefined) break;
      if (stats.isSymbolicLink() && !isInside(realBase, await realpath(full).catch(() => "/")))
        throw refused(path, "a link in the destination leads outside it");
    }
  }
}

/** A batch entry's path, relative and never through a link in `base`. */
export async function batchPath(base: string, path: string): Promise<string> {
  const relative = normalizeRelativePath(path, "manifest entry");
  const parts = relative.split("/");
  for (let index = 1; index < parts.length; index++) {
    if ((await lstat(join(base, ...parts.slice(0, index))).catch(() => undefined))?.isSymbolicLink())
      throw refused(path, "a link is on the way");
  }
  return relative;
}

export function refused(path: string, problem: string): OutpostError {
  return new OutpostError("workspace", `The reference provider refused ${JSON.stringify(path)}: ${problem}.`);
}
