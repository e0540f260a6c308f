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
 * Occurrences are found with `indexOf` (fast on large transcripts) and checked one by one.
 * Also bundled into the sandbox programs (`dist/sandbox-programs.cjs`), so it imports nothing.
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
  // Longest first, so a workspace inside the home wins over the home at the same position.
  const froms = [...table.keys()].sort((a, b) => b.length - a.length);
  const nameCharacter = /[\p{L}\p{N}_.~+@%-]/u;
  const isName = (character: string | undefined) => character !== undefined && nameCharacter.test(character);
  const startsPath = (text: string, at: number) => {
    const before = text[at - 1];
    if (!isName(before)) return true;
    if (text[at - 2] === "\\" && /[nrtbfv]/.test(before!)) return true;
    return (before === "a" || before === "b") && (at < 2 || /[\s"']/.test(text[at - 2]!));
  };
  return (text) => {
    const hits: { at: number; from: string }[] = [];
    for (const from of froms) {
      for (let at = text.indexOf(from); at !== -1; at = text.indexOf(from, at + 1)) {
        if (startsPath(text, at) && !isName(text[at + from.length])) hits.push({ at, from });
      }
    }
    if (hits.length === 0) return text;
    hits.sort((a, b) => a.at - b.at || b.from.length - a.from.length);
    let result = "";
    let last = 0;
    for (const hit of hits) {
      if (hit.at < last) continue;
      result += text.slice(last, hit.at) + table.get(hit.from)!;
      last = hit.at + hit.from.length;
    }
    return result + text.slice(last);
  };
}
