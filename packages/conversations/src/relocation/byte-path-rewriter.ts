import type { PathPair } from "./path-rewriter.js";

const NAME = /[\p{L}\p{N}_.~+@%-]/u;
// ASCII answers from a table: the regex only sees the rare non-ASCII neighbour.
const ASCII_NAME = Uint8Array.from({ length: 128 }, (_, code) => (NAME.test(String.fromCharCode(code)) ? 1 : 0));

/** One old path found at a path boundary: bytes `[at, end)` become `to`. */
export interface PathHit {
  readonly at: number;
  readonly end: number;
  readonly to: Buffer;
}

/**
 * Finds the old paths of `pairs` in UTF-8 bytes with the rules of `createPathRewriter`: `Buffer.indexOf` per
 * path (native search, no decoding), then the boundary checks at each occurrence only. Hits come back in
 * order without overlaps; at one position the longer path wins. `undefined` when no pair changes anything.
 */
export function createBytePathFinder(pairs: readonly PathPair[]): ((view: Buffer) => PathHit[]) | undefined {
  const trim = (path: string) => (path.length > 1 ? path.replace(/\/+$/, "") : path);
  const table: { from: Buffer; to: Buffer }[] = [];
  for (const pair of pairs) {
    const from = trim(pair.from);
    const to = trim(pair.to);
    if (from === "" || from === "/" || from === to || table.some((entry) => entry.from.toString() === from)) continue;
    table.push({ from: Buffer.from(from), to: Buffer.from(to) });
  }
  if (table.length === 0) return undefined;
  table.sort((a, b) => b.from.length - a.from.length);
  // The workspace usually lies in the home, or both share a parent: one search for their common start.
  const shared = sharedStart(table.map((entry) => entry.from));
  if (table.length > 1 && shared.length > 1) {
    return (view) => {
      const hits: PathHit[] = [];
      for (let at = view.indexOf(shared); at !== -1;) {
        let next = at + 1;
        for (const { from, to } of table) {
          const end = at + from.length;
          if (
            end <= view.length &&
            view.compare(from, shared.length, from.length, at + shared.length, end) === 0 &&
            startsPath(view, at) &&
            !isNameAt(view, end)
          ) {
            hits.push({ at, end, to });
            next = end;
            break;
          }
        }
        at = view.indexOf(shared, next);
      }
      return hits;
    };
  }
  return (view) => {
    const hits: PathHit[] = [];
    for (const { from, to } of table) {
      for (let at = view.indexOf(from); at !== -1;) {
        const end = at + from.length;
        const valid = startsPath(view, at) && !isNameAt(view, end);
        if (valid) hits.push({ at, end, to });
        at = view.indexOf(from, valid ? end : at + 1);
      }
    }
    if (table.length === 1 || hits.length < 2) return hits;
    // Longest first at equal positions (the table order, kept by the stable sort), then overlaps dropped.
    hits.sort((a, b) => a.at - b.at);
    const kept: PathHit[] = [];
    let last = 0;
    for (const hit of hits) {
      if (hit.at < last) continue;
      kept.push(hit);
      last = hit.end;
    }
    return kept;
  };
}

/** The bytes every path starts with. */
function sharedStart(paths: readonly Buffer[]): Buffer {
  let length = Math.min(...paths.map((path) => path.length));
  for (const path of paths) {
    let same = 0;
    while (same < length && path[same] === paths[0]![same]) same += 1;
    length = same;
  }
  return paths[0]!.subarray(0, length);
}

/** Pushes onto `out` the bytes of `view[start, end)` with the hits in that span (from `hits[first]` on) replaced. */
export function spliceHits(view: Buffer, start: number, end: number, hits: readonly PathHit[], first: number, out: Buffer[]): number {
  let last = start;
  let index = first;
  for (; index < hits.length && hits[index]!.at < end; index += 1) {
    const hit = hits[index]!;
    if (hit.at > last) out.push(view.subarray(last, hit.at));
    out.push(hit.to);
    last = hit.end;
  }
  if (end > last) out.push(view.subarray(last, end));
  return index;
}

/**
 * The byte-level twin of `createPathRewriter` for one buffer: the same boundary rules, untouched bytes copied
 * without decoding them. Returns the buffer itself when nothing changes.
 */
export function createBytePathRewriter(pairs: readonly PathPair[]): (bytes: Buffer) => Buffer {
  const find = createBytePathFinder(pairs);
  if (find === undefined) return (bytes) => bytes;
  return (bytes) => {
    const hits = find(bytes);
    if (hits.length === 0) return bytes;
    const out: Buffer[] = [];
    spliceHits(bytes, 0, bytes.length, hits, 0, out);
    return Buffer.concat(out);
  };
}

const ESCAPE_LETTERS = [0x6e, 0x72, 0x74, 0x62, 0x66, 0x76]; // n r t b f v

function startsPath(bytes: Buffer, at: number): boolean {
  if (!isNameBefore(bytes, at)) return true;
  const before = bytes[at - 1]!;
  // `\n/repo` in raw JSON text: an escape letter is a boundary.
  if (bytes[at - 2] === 0x5c && ESCAPE_LETTERS.includes(before)) return true;
  // git diff headers: `a/repo/x`, `b/repo/x`.
  return (before === 0x61 || before === 0x62) && (at < 2 || /[\s"']/.test(String.fromCharCode(bytes[at - 2]!)));
}

/** Whether the character that starts at `at` belongs to a file name. */
function isNameAt(bytes: Buffer, at: number): boolean {
  if (at >= bytes.length) return false;
  const byte = bytes[at]!;
  if (byte < 0x80) return ASCII_NAME[byte] === 1;
  let end = at + 1;
  while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end += 1;
  return NAME.test(bytes.toString("utf8", at, end));
}

/** Whether the character that ends just before `at` belongs to a file name. */
function isNameBefore(bytes: Buffer, at: number): boolean {
  if (at === 0) return false;
  const byte = bytes[at - 1]!;
  if (byte < 0x80) return ASCII_NAME[byte] === 1;
  let start = at - 1;
  while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start -= 1;
  return NAME.test(bytes.toString("utf8", start, at));
}
