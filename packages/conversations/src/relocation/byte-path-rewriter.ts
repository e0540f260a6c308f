import type { PathPair } from "./path-rewriter.js";

const NAME = /[\p{L}\p{N}_.~+@%-]/u;
// ASCII answers from a table: the regex only sees the rare non-ASCII neighbour.
const ASCII_NAME = Uint8Array.from({ length: 128 }, (_, code) => (NAME.test(String.fromCharCode(code)) ? 1 : 0));

/**
 * The byte-level twin of `createPathRewriter`, for large UTF-8 files: the same boundary rules, but it finds
 * paths with `Buffer.indexOf` and copies untouched bytes without decoding them to text.
 */
export function createBytePathRewriter(pairs: readonly PathPair[]): (bytes: Buffer, latin1?: string) => Buffer {
  const trim = (path: string) => (path.length > 1 ? path.replace(/\/+$/, "") : path);
  // Paths as latin1 strings of their UTF-8 bytes: a latin1 view of the bytes is searched and sliced with
  // string operations (byte offsets, far cheaper per call than Buffer methods) and encoded back unchanged.
  const table: { from: Buffer; search: string; replacement: string }[] = [];
  for (const pair of pairs) {
    const from = trim(pair.from);
    const to = trim(pair.to);
    if (from === "" || from === "/" || from === to || table.some((entry) => entry.from.toString() === from)) continue;
    table.push({ from: Buffer.from(from), search: Buffer.from(from).toString("latin1"), replacement: Buffer.from(to).toString("latin1") });
  }
  table.sort((a, b) => b.from.length - a.from.length);
  return (bytes, latin1) => {
    // Positions per path (plain number arrays stay packed and fast), merged in order below.
    const found: number[][] = table.map(() => []);
    const view = latin1 ?? bytes.toString("latin1");
    let total = 0;
    table.forEach((entry, index) => {
      const positions = found[index]!;
      for (let at = view.indexOf(entry.search); at !== -1; ) {
        const valid = startsPath(bytes, at) && !isNameAt(bytes, at + entry.from.length);
        if (valid) positions.push(at);
        at = view.indexOf(entry.search, at + (valid ? entry.from.length : 1));
      }
      total += positions.length;
    });
    if (total === 0) return bytes;
    const heads = table.map(() => 0);
    // Assembled as latin1 text (cheap slices of the view), encoded back to the same bytes once at the end.
    const parts: string[] = [];
    let last = 0;
    for (;;) {
      // The earliest next hit; at equal positions the longer path (earlier in the table) wins.
      let pick = -1;
      for (let index = 0; index < table.length; index += 1) {
        const at = found[index]![heads[index]!];
        if (at !== undefined && (pick === -1 || at < found[pick]![heads[pick]!]!)) pick = index;
      }
      if (pick === -1) break;
      const at = found[pick]![heads[pick]!]!;
      heads[pick] = heads[pick]! + 1;
      if (at < last) continue;
      const entry = table[pick]!;
      parts.push(view.slice(last, at), entry.replacement);
      last = at + entry.from.length;
    }
    parts.push(view.slice(last));
    return Buffer.from(parts.join(""), "latin1");
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
