import { createReadStream, createWriteStream } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { OutpostError } from "@outpost/core";
import { createBytePathRewriter } from "./byte-path-rewriter.js";
import { rewriteJsonLine } from "./json-text-rewriter.js";
import { createPathRewriter, type PathPair } from "./path-rewriter.js";

/** How a file's text is rewritten: JSON strings (JSON and JSONL files) or plain text. */
export type RelocatedText = "json" | "text";

/** Longest line kept in memory while rewriting; a longer one is refused rather than buffered. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * Streams `source` to `target`, replacing the `pairs` paths block by block (whole lines only), so memory
 * stays bounded by the longest line whatever the file's size. Bytes are never decoded unless a JSON line
 * holds an escape that could spell a path (`\/`, `\u`); every other byte is copied as it was.
 */
export async function relocateFile(source: string, target: string, pairs: readonly PathPair[], kind: RelocatedText, signal?: AbortSignal): Promise<void> {
  await pipeline(
    createReadStream(source, { highWaterMark: 64 * 1024 }),
    lineRewriter(bufferRewriter(pairs, kind)),
    createWriteStream(target, { flags: "wx" }),
    signal ? { signal } : {},
  );
}

/** Rewrites a block of whole lines: bytes directly, and JSON lines with escapes through their strings. */
export function bufferRewriter(pairs: readonly PathPair[], kind: RelocatedText): (block: Buffer) => Buffer {
  const bytes = createBytePathRewriter(pairs);
  const text = createPathRewriter(pairs);
  if (kind === "text") return (block) => bytes(block);
  return (block) => {
    // Escapes are looked for in a latin1 view (string search is cheaper per call than Buffer.indexOf, and
    // transcripts hold many `\"` and `\n` escapes that are not of interest).
    const view = block.toString("latin1");
    const parts: Buffer[] = [];
    let last = 0;
    for (let escape = nextEscape(view, 0); escape !== -1; escape = nextEscape(view, last)) {
      const start = view.lastIndexOf("\n", escape) + 1;
      const newline = view.indexOf("\n", escape);
      const end = newline === -1 ? block.length : newline;
      parts.push(bytes(block.subarray(last, start)), Buffer.from(rewriteJsonLine(block.toString("utf8", start, end), text)));
      last = end;
    }
    if (last === 0) return bytes(block, view);
    parts.push(bytes(block.subarray(last)));
    return Buffer.concat(parts);
  };
}

/** Next `\/` or `\u` escape: not one when the backslash is itself escaped (`\\u`). */
function nextEscape(view: string, from: number): number {
  const slash = escapeAt(view, "\\/", from);
  const unicode = escapeAt(view, "\\u", from);
  if (slash === -1) return unicode;
  return unicode === -1 ? slash : Math.min(slash, unicode);
}

function escapeAt(view: string, sequence: string, from: number): number {
  for (let at = view.indexOf(sequence, from); at !== -1; at = view.indexOf(sequence, at + 1)) {
    let backslashes = 0;
    while (view.charCodeAt(at - 1 - backslashes) === 92) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/**
 * A stream transform that hands `rewriteBlock` whole lines only (a run of complete lines, or the last
 * unterminated one), never a line cut in two. A newline byte never occurs inside a UTF-8 sequence.
 */
export function lineRewriter(rewriteBlock: (block: Buffer) => Buffer): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const first = chunk.indexOf(0x0a);
      if (first === -1) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes > MAX_LINE_BYTES) {
          callback(new OutpostError("limit", `A line longer than ${MAX_LINE_BYTES} bytes cannot be relocated. Check the transcript is not corrupt.`));
          return;
        }
        callback();
        return;
      }
      // Only the line cut by the previous chunk is joined; the rest of the chunk is rewritten in place.
      const last = chunk.lastIndexOf(0x0a);
      const head = pending.length === 0 ? chunk.subarray(0, first + 1) : Buffer.concat([...pending, chunk.subarray(0, first + 1)]);
      this.push(rewriteBlock(head));
      if (last > first) this.push(rewriteBlock(chunk.subarray(first + 1, last + 1)));
      pending = last + 1 < chunk.length ? [chunk.subarray(last + 1)] : [];
      pendingBytes = chunk.length - last - 1;
      callback();
    },
    flush(callback) {
      callback(null, pending.length === 0 ? undefined : rewriteBlock(Buffer.concat(pending)));
    },
  });
}

/** Lines without escapes are rewritten in one pass; the others string by string. */
export function rewriteJsonBlock(block: string, rewrite: (text: string) => string): string {
  if (!block.includes("\\/") && !/(?<!\\)(?:\\\\)*\\u/.test(block)) return rewrite(block);
  const lines = block.split("\n");
  for (let index = 0; index < lines.length; index += 1) lines[index] = rewriteJsonLine(lines[index]!, rewrite);
  return lines.join("\n");
}
