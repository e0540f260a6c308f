import type { PathPair } from "./path-rewriter.js";

const NAME = /[\p{L}\p{N}_.~+@%-]/u;
// ASCII answers from a table: the regex only sees the rare non-ASCII neighbour.
const ASCII_NAME = Uint8Array.from({ length: 128 }, (_, code) => (NAME.test(String.fromCharCode(code)) ? 1 : 0));

/**
 * The byte-level twin of `createPathRewriter`, for large UTF-8 files: the same boundary rules, but it finds
 * paths with `Buffer.indexOf` and copies untouched bytes without decoding them to text.
 */
export function createBytePathRewriter(pairs: readonly PathPair[]): (bytes: Buffer) => Buffer {
  const trim = (path: string) => (path.length > 1 ? path.replace(/\/+$/, "") : path);
  const table: { from: Buffer; to: Buffer }[] = [];
  for (const pair of pairs) {
    const from = trim(pair.from);
    const to = trim(pair.to);
    if (from === "" || from === "/" || from === to || table.some((entry) => entry.from.toString() === from)) continue;
    table.push({ from: Buffer.from(from), to: Buffer.from(to) });
  }
  table.sort((a, b) => b.from.length - a.from.length);
  return (bytes) => {
    const hits: { at: number; entry: { from: Buffer; to: Buffer } }[] = [];
    for (const entry of table) {
      for (let at = bytes.indexOf(entry.from); at !== -1; at = bytes.indexOf(entry.from, at + 1)) {
        if (startsPath(bytes, at) && !isNameAt(bytes, at + entry.from.length)) hits.push({ at, entry });
      }
    }
    if (hits.length === 0) return bytes;
    if (table.length > 1) hits.sort((a, b) => a.at - b.at || b.entry.from.length - a.entry.from.length);
    let size = bytes.length;
    let last = 0;
    for (const hit of hits) {
      if (hit.at < last) continue;
      size += hit.entry.to.length - hit.entry.from.length;
      last = hit.at + hit.entry.from.length;
    }
    const out = Buffer.allocUnsafe(size);
    let written = 0;
    last = 0;
    for (const hit of hits) {
      if (hit.at < last) continue;
      written += bytes.copy(out, written, last, hit.at);
      written += hit.entry.to.copy(out, written);
      last = hit.at + hit.entry.from.length;
    }
    bytes.copy(out, written, last);
    return out;
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
