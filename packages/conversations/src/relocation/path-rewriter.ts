/** One absolute path to replace by another. */
export interface PathPair {
  readonly from: string;
  readonly to: string;
}

/**
 * Builds a function that replaces each `from` path by its `to` path at path boundaries only: `/repo` is
 * rewritten in `/repo`, `/repo/x`, `"/repo"` and `cd /repo: …` but never inside `/repository`, `/repo.old`
 * or `/x/repo`. An escape letter just before the path (`\n/repo` in raw JSON text) counts as a boundary, and
 * so do git's diff prefixes (`a/repo/x`, `b/repo/x` in `diff --git a/repo/x b/repo/x`).
 *
 * Self-contained on purpose: its source is also serialized into scripts that run inside a sandbox.
 */
export function createPathRewriter(pairs: readonly PathPair[]): (text: string) => string {
  const trim = (path: string) => (path.length > 1 ? path.replace(/\/+$/, "") : path);
  const table = new Map<string, string>();
  for (const pair of pairs) {
    const from = trim(pair.from);
    const to = trim(pair.to);
    if (from === "" || from === "/" || from === to || table.has(from)) continue;
    table.set(from, to);
  }
  if (table.size === 0) return (text) => text;
  // Longest first, so a workspace inside the home is matched before the home itself.
  const froms = [...table.keys()].sort((a, b) => b.length - a.length);
  const quoted = froms.map((from) => from.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  const name = "[\\p{L}\\p{N}_.~+@%\\-]";
  const pattern = new RegExp(`(?:(?<!${name})|(?<=\\\\[nrtbfv])|(?<=(?:^|[\\s"'])[ab]))(?:${quoted.join("|")})(?!${name})`, "gu");
  return (text) => {
    let any = false;
    for (const from of froms) {
      if (text.includes(from)) {
        any = true;
        break;
      }
    }
    return any ? text.replace(pattern, (match) => table.get(match) ?? match) : text;
  };
}
