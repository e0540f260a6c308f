import { OutpostError } from "@outpost/core";
import type { PathPair } from "./path-rewriter.js";

/** Where a conversation was recorded and where it is being restored. */
export interface Relocation {
  readonly from: { readonly workspace: string; readonly home: string };
  readonly to: { readonly workspace: string; readonly home: string };
}

/** The two pairs a relocation rewrites: workspace and home. */
export function relocationPairs(relocation: Relocation): PathPair[] {
  return [
    { from: relocation.from.workspace, to: relocation.to.workspace },
    { from: relocation.from.home, to: relocation.to.home },
  ];
}

/**
 * Refuses a path that cannot be written into JSON or text without escaping: rewriting then stays a plain
 * substitution that never needs to re-encode the bytes around it.
 */
export function assertRelocatablePath(path: string, what: string): string {
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new OutpostError(
      "configuration",
      `The ${what} ${JSON.stringify(path)} is not an absolute path. Give the sandbox an absolute ${what}.`,
      { details: { path } },
    );
  }
  // eslint-disable-next-line no-control-regex
  if (/["\\\u0000-\u001f\u007f]/.test(path)) {
    throw new OutpostError(
      "configuration",
      `The ${what} ${JSON.stringify(path)} contains a quote, backslash or control character, which conversations cannot be relocated to or from. Use a plain path.`,
      { details: { path } },
    );
  }
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

/** From where a conversation was recorded to the lease it is restored into, every path checked. */
export function relocationTo(
  recorded: { readonly workspace: string; readonly home: string },
  lease: { readonly root: string; readonly home: string },
): Relocation {
  return {
    from: {
      workspace: assertRelocatablePath(recorded.workspace, "recorded workspace"),
      home: assertRelocatablePath(recorded.home, "recorded home"),
    },
    to: { workspace: assertRelocatablePath(lease.root, "sandbox workspace"), home: assertRelocatablePath(lease.home, "sandbox home") },
  };
}
