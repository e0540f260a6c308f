const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The end of a process's output, for a message: at most `maxBytes` bytes (UTF-8) of `text`, trimmed, starting
 * at a line boundary. An error line is kept whole or not at all: a byte cut turned
 * `ReferenceError: __require is not defined` into `re is not defined`. Only a last line longer than `maxBytes`
 * is cut, after a leading `…`.
 */
export function tailLines(text: string, maxBytes: number): string {
  if (!(maxBytes > 0)) return "";
  const trimmed = text.trim();
  // Each UTF-16 code unit encodes to at least one byte, so the last maxBytes units hold the last maxBytes bytes.
  const window = encoder.encode(trimmed.slice(-maxBytes));
  if (window.length <= maxBytes && trimmed.length <= maxBytes) return trimmed;
  const bytes = window.subarray(window.length - maxBytes);
  // A newline byte never occurs inside a multi-byte character: cutting after one keeps every character whole.
  const newline = bytes.indexOf(NEWLINE);
  if (newline >= 0) return decoder.decode(bytes.subarray(newline + 1)).trim();
  let start = 0;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start += 1;
  return `…${decoder.decode(bytes.subarray(start))}`;
}
