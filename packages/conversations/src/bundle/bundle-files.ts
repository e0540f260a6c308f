import type { SessionBundleFiles } from "@outpost/core";

/**
 * The view of a bundle's texts that a `validate` hook gets: `text(path)`, plus each text as a property named
 * by its path. Bundled into the sandbox programs, and also used on the host by `locate`.
 */
export function bundleFiles(texts: Readonly<Record<string, string>>): SessionBundleFiles {
  const byPath = new Map(Object.entries(texts));
  // The method lives on the prototype, so a file named like it cannot replace it (it stays reachable through it).
  const prototype = Object.freeze({
    text(path: string): string | undefined {
      return typeof path === "string" ? byPath.get(path) : undefined;
    },
  });
  const files = Object.create(prototype) as Record<string, string>;
  for (const [path, text] of byPath) {
    if (path !== "text") Object.defineProperty(files, path, { value: text, enumerable: true });
  }
  return Object.freeze(files) as unknown as SessionBundleFiles;
}
