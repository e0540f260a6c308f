import { copyFile, constants } from "node:fs/promises";
import type { PathPair } from "./path-rewriter.js";
import { relocateFile, type RelocatedText } from "./relocate-file.js";

/** JSON strings are rewritten in JSON files, paths in text files; anything else is copied byte for byte. */
export function relocatedKind(path: string): RelocatedText | undefined {
  if (/\.(jsonl|json|ndjson)$/i.test(path)) return "json";
  if (/\.(md|txt|ya?ml|log|toml)$/i.test(path)) return "text";
  return undefined;
}

/** Copies `source` to a new `target`, relocating paths when the file type holds text. */
export async function relocateCopy(
  source: string,
  target: string,
  pairs: readonly PathPair[],
  signal?: AbortSignal,
  kind = relocatedKind(source),
): Promise<void> {
  if (kind === undefined) await copyFile(source, target, constants.COPYFILE_EXCL);
  else await relocateFile(source, target, pairs, kind, signal);
}
