const SLASH_ESCAPE = Buffer.from("\\/");
const UNICODE_ESCAPE = Buffer.from("\\u");

/**
 * Lines of JSON text in `view` (`[start, end)` pairs, newline excluded, in order) holding an escape that can
 * spell a path or change a path boundary once decoded: `\/`, or a `\uXXXX` other than a control character.
 * Those lines go through the string rewriter; every other line is rewritten on its bytes. A control character
 * (`\u001b` of terminal colours, common in tool output) is never part of a path nor a name character, so it
 * only matters when a path starts right after it.
 */
export function escapedJsonLines(view: Buffer): number[] {
  const starts: number[] = [];
  for (let at = view.indexOf(SLASH_ESCAPE); at !== -1; at = view.indexOf(SLASH_ESCAPE, at + 1)) {
    if (isEscape(view, at)) {
      starts.push(lineStart(view, at));
      at = lineEnd(view, at);
    }
  }
  for (let at = view.indexOf(UNICODE_ESCAPE); at !== -1; at = view.indexOf(UNICODE_ESCAPE, at + 1)) {
    if (isEscape(view, at) && !isHarmlessControl(view, at)) {
      starts.push(lineStart(view, at));
      at = lineEnd(view, at);
    }
  }
  if (starts.length === 0) return [];
  const lines: number[] = [];
  let previous = -1;
  for (const start of starts.sort((a, b) => a - b)) {
    if (start === previous) continue;
    lines.push(start, lineEnd(view, start));
    previous = start;
  }
  return lines;
}

/** Not an escape when the backslash is itself escaped (`\\u` is a backslash, then `u`). */
function isEscape(view: Buffer, at: number): boolean {
  let backslashes = 0;
  while (at - 1 - backslashes >= 0 && view[at - 1 - backslashes] === 0x5c) backslashes += 1;
  return backslashes % 2 === 0;
}

function isHarmlessControl(view: Buffer, at: number): boolean {
  if (at + 6 > view.length) return false;
  const hex = view.toString("latin1", at + 2, at + 6);
  if (!/^[0-9a-fA-F]{4}$/.test(hex)) return false;
  const code = Number.parseInt(hex, 16);
  // A path right after it would see a boundary decoded but a name character (the hex digit) raw.
  return (code < 0x20 || code === 0x7f) && view[at + 6] !== 0x2f;
}

function lineStart(view: Buffer, at: number): number {
  return view.lastIndexOf(0x0a, at) + 1;
}

function lineEnd(view: Buffer, at: number): number {
  const newline = view.indexOf(0x0a, at);
  return newline === -1 ? view.length : newline;
}
