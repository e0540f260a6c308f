import { lstatSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { OutpostError, sessionPathPattern, type SessionBundleProfile } from "@outpost/core";
import type { BundleStoreFlaws } from "./reference-bundle-store.js";

/** A captured file: bundle-relative path and bytes in base64. */
export interface ReferenceEntry {
  readonly path: string;
  readonly data: string;
}

/**
 * Reads the files of a session folder that the profile captures, refusing links, hard links and special
 * files and stopping at the limits (each unless a flaw says otherwise).
 */
export function walkSession(
  folder: string,
  profile: SessionBundleProfile,
  limits: { readonly maxBytes: number; readonly maxFiles: number },
  flaws: BundleStoreFlaws,
): ReferenceEntry[] {
  const files: ReferenceEntry[] = [];
  let bytes = 0;
  const applied = (pattern: RegExp) => (flaws.dropsLineBreakNames ? pattern : sessionPathPattern(pattern));
  const accepted = (path: string) =>
    flaws.capturesEverything === true ||
    (applied(profile.include).test(path) && !(profile.exclude ? applied(profile.exclude).test(path) : false));
  const visit = (absolute: string, relative: string) => {
    for (const name of readdirSync(absolute).sort()) {
      const path = relative === "" ? name : `${relative}/${name}`;
      const child = join(absolute, name);
      const linked = lstatSync(child);
      if (linked.isSymbolicLink() && !flaws.followsLinks)
        throw new OutpostError("workspace", `Refused to capture: ${path} is a symbolic link. Replace it by a file.`);
      let stat;
      try {
        stat = linked.isSymbolicLink() ? statSync(child) : linked;
      } catch {
        continue;
      }
      if (!accepted(path)) continue;
      if (stat.isDirectory()) {
        visit(child, path);
        continue;
      }
      if (!stat.isFile()) throw new OutpostError("workspace", `Refused to capture: ${path} is not a regular file. Remove it.`);
      if (stat.nlink > 1 && !flaws.followsHardLinks)
        throw new OutpostError("workspace", `Refused to capture: ${path} has ${stat.nlink} hard links. Replace it by a copy.`);
      bytes += stat.size;
      if (!flaws.noLimits && (files.length + 1 > limits.maxFiles || bytes > limits.maxBytes))
        throw new OutpostError("limit", `Refused to capture: the session is over ${limits.maxFiles} files or ${limits.maxBytes} bytes.`);
      files.push({ path, data: readFileSync(child).toString("base64") });
    }
  };
  visit(folder, "");
  return files;
}
