/**
 * Rewrites paths inside the JSON string tokens of one line of JSON or JSONL text; every byte outside a
 * rewritten string stays as it was. A raw substitution is exact for JSON (paths only ever occur inside
 * strings and need no escaping), except in strings where a path could be spelled with escapes (`\/`,
 * `\u002f`): only those strings are decoded, rewritten and encoded again.
 */
export function rewriteJsonLine(line: string, rewrite: (text: string) => string): string {
  let escape = nextEscape(line, 0);
  if (escape === -1) return rewrite(line);
  let result = "";
  let last = 0;
  let index = line.indexOf('"');
  while (index !== -1 && escape !== -1) {
    const end = closingQuote(line, index + 1);
    // An unterminated string (a truncated last line): the rest is rewritten as plain text.
    if (end === -1) break;
    if (escape < end) {
      if (escape > index) {
        result += rewrite(line.slice(last, index)) + decodeAndRewrite(line.slice(index, end + 1), rewrite);
        last = end + 1;
      }
      escape = nextEscape(line, end + 1);
    }
    index = line.indexOf('"', end + 1);
  }
  return result + rewrite(line.slice(last));
}

/** Next `\/` or `\u` escape; `\\u` (an escaped backslash, then `u`) is not one. */
function nextEscape(line: string, from: number): number {
  const slash = escapeAt(line, "\\/", from);
  const unicode = escapeAt(line, "\\u", from);
  if (slash === -1) return unicode;
  return unicode === -1 ? slash : Math.min(slash, unicode);
}

function escapeAt(line: string, sequence: string, from: number): number {
  for (let at = line.indexOf(sequence, from); at !== -1; at = line.indexOf(sequence, at + 1)) {
    if (backslashesBefore(line, at) % 2 === 0) return at;
  }
  return -1;
}

function backslashesBefore(line: string, at: number): number {
  let count = 0;
  while (line.charCodeAt(at - 1 - count) === 92) count += 1;
  return count;
}

/** Position of the quote that closes a string opened before `from`, skipping escaped quotes. */
function closingQuote(line: string, from: number): number {
  for (let quote = line.indexOf('"', from); quote !== -1; quote = line.indexOf('"', quote + 1)) {
    if (backslashesBefore(line, quote) % 2 === 0) return quote;
  }
  return -1;
}

function decodeAndRewrite(token: string, rewrite: (text: string) => string): string {
  let value: unknown;
  try {
    value = JSON.parse(token);
  } catch {
    return rewrite(token);
  }
  if (typeof value !== "string") return token;
  const replaced = rewrite(value);
  return replaced === value ? token : JSON.stringify(replaced);
}
