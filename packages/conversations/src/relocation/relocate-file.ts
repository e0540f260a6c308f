import { createReadStream, createWriteStream } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { OutpostError } from "@outpost/core";
import { rewriteJsonLine } from "./json-text-rewriter.js";

/** How a file's text is rewritten: JSON strings (JSON and JSONL files) or plain text. */
export type RelocatedText = "json" | "text";

/** Longest line kept in memory while rewriting; a longer one is refused rather than buffered. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * Streams `source` to `target`, rewriting paths line by line, so memory stays bounded by the longest line
 * whatever the file's size. Lines keep their exact endings.
 */
export async function relocateFile(
  source: string,
  target: string,
  rewrite: (text: string) => string,
  kind: RelocatedText,
  signal?: AbortSignal,
): Promise<void> {
  await pipeline(
    createReadStream(source, { encoding: "utf8", highWaterMark: 1024 * 1024 }),
    lineRewriter(kind === "json" ? (block: string) => rewriteJsonBlock(block, rewrite) : rewrite),
    createWriteStream(target, { flags: "wx" }),
    signal ? { signal } : {},
  );
}

/**
 * A stream transform that hands `rewriteBlock` whole lines only (a run of complete lines, or the last
 * unterminated one), never a line cut in two.
 */
export function lineRewriter(rewriteBlock: (block: string) => string): Transform {
  let pending = "";
  return new Transform({
    decodeStrings: false,
    transform(chunk: string, _encoding, callback) {
      const text = pending + chunk;
      const cut = text.lastIndexOf("\n");
      if (cut === -1) {
        pending = text;
        if (pending.length > MAX_LINE_BYTES) {
          callback(new OutpostError("limit", `A line longer than ${MAX_LINE_BYTES} bytes cannot be relocated. Check the transcript is not corrupt.`));
          return;
        }
        callback();
        return;
      }
      pending = text.slice(cut + 1);
      callback(null, rewriteBlock(text.slice(0, cut + 1)));
    },
    flush(callback) {
      callback(null, pending === "" ? undefined : rewriteBlock(pending));
    },
  });
}

/** Lines without escapes are rewritten in one pass; the others string by string. */
export function rewriteJsonBlock(block: string, rewrite: (text: string) => string): string {
  if (!block.includes("\\/") && !block.includes("\\u")) return rewrite(block);
  const lines = block.split("\n");
  for (let index = 0; index < lines.length; index += 1) lines[index] = rewriteJsonLine(lines[index]!, rewrite);
  return lines.join("\n");
}
