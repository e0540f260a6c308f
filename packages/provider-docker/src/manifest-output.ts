import { createHash } from "node:crypto";
import type { FileManifestEntry } from "@outpost/core";
import { assertLinkStaysInside } from "./link-target.js";

/** Parses the MANIFEST script's output (see container-scripts.ts) into sorted, unique entries. */
export function parseManifestOutput(output: string): FileManifestEntry[] {
  const lines = output.split("\n");
  const separator = lines.indexOf("--");
  const listing = lines.slice(0, separator < 0 ? lines.length : separator);
  const hashes = lines.slice(separator + 1).filter((line) => line !== "");
  const found = new Map<string, FileManifestEntry>();
  let fileIndex = 0;
  for (let index = 0; index < listing.length; index++) {
    const line = listing[index]!;
    if (line.startsWith("S|")) {
      const [, mode, size, ...rest] = line.split("|");
      const path = clean(rest.join("|"));
      const sha256 = (hashes[fileIndex++] ?? "").replace(/^\\/, "").slice(0, 64);
      found.set(path, { path, kind: "file", mode: parseInt(mode!, 8), size: Number(size), sha256 });
    } else if (line.startsWith("L|")) {
      const path = clean(line.slice(2));
      const target = listing[++index] ?? "";
      assertLinkStaysInside(path, target);
      found.set(path, { path, kind: "link", mode: 0o777, size: Buffer.byteLength(target), sha256: createHash("sha256").update(target).digest("hex") });
    }
  }
  return [...found.values()].sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

function clean(path: string): string {
  return path.replace(/^\.\//, "");
}
