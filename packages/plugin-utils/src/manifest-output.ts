import { createHash } from "node:crypto";
import { OutpostError, type FileManifestEntry } from "@outpost/core";
import { assertLinkStaysInside } from "./link-target.js";
import { transferMode } from "./transfer-mode.js";

/** Parses the MANIFEST script's output (see transfer-scripts.ts) into sorted, unique entries. */
export function parseManifestOutput(output: string): FileManifestEntry[] {
  const lines = output.split("\n");
  const separator = lines.indexOf("--");
  const listing = lines.slice(0, separator < 0 ? lines.length : separator);
  const hashes = hashesByName(lines.slice(separator + 1));
  const found = new Map<string, FileManifestEntry>();
  for (let index = 0; index < listing.length; index++) {
    const line = listing[index]!;
    if (line.startsWith("S|")) {
      const [, mode, size, ...rest] = line.split("|");
      const name = rest.join("|");
      const sha256 = hashes.get(name);
      // Listing and hashing are two passes: a file that appeared or vanished between them is a race.
      if (sha256 === undefined) throw changedWhileListing(clean(name));
      const path = clean(name);
      found.set(path, { path, kind: "file", mode: transferMode(parseInt(mode!, 8)), size: Number(size), sha256 });
    } else if (line.startsWith("L|")) {
      const path = clean(line.slice(2));
      const targetLine = listing[++index] ?? "";
      if (!targetLine.startsWith("T")) throw unreadable(path);
      const target = targetLine.slice(1);
      assertLinkStaysInside(path, target);
      found.set(path, {
        path,
        kind: "link",
        mode: 0o777,
        size: Buffer.byteLength(target),
        sha256: createHash("sha256").update(target).digest("hex"),
      });
    }
  }
  return [...found.values()].sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

/** `sha256sum` lines by file name; GNU marks a name holding a backslash with a leading "\" and doubles it. */
function hashesByName(lines: readonly string[]): Map<string, string> {
  const hashes = new Map<string, string>();
  for (const line of lines) {
    if (line === "") continue;
    const escaped = line.startsWith("\\");
    const body = escaped ? line.slice(1) : line;
    const name = body.slice(66);
    hashes.set(escaped ? name.replaceAll("\\\\", "\\") : name, body.slice(0, 64));
  }
  return hashes;
}

function changedWhileListing(path: string): OutpostError {
  return new OutpostError(
    "conflict",
    `The manifest could not hash ${JSON.stringify(path)}: the tree changed while it was listed. Build the manifest again once writers are done.`,
    {
      details: { path },
    },
  );
}

function unreadable(path: string): OutpostError {
  return new OutpostError(
    "workspace",
    `The manifest of ${JSON.stringify(path)} is malformed: a link's line is not followed by its target. Check that the sandbox has a POSIX sh, find and readlink.`,
    { details: { path } },
  );
}

function clean(path: string): string {
  return path.replace(/^\.\//, "");
}
