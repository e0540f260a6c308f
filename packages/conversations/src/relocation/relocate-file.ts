import { constants } from "node:fs";
import { copyFile, open, rm, type FileHandle } from "node:fs/promises";
import { OutpostError, throwIfAborted } from "@outpost/core";
import { createBytePathFinder, spliceHits, type PathHit } from "./byte-path-rewriter.js";
import { escapedJsonLines } from "./escaped-json-lines.js";
import { rewriteJsonLine } from "./json-text-rewriter.js";
import { createPathRewriter, type PathPair } from "./path-rewriter.js";

/** How a file's text is rewritten: JSON strings (JSON and JSONL files) or plain text. */
export type RelocatedText = "json" | "text";

/** Longest line kept in memory while rewriting; a longer one is refused rather than buffered. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/** Bytes read at a time: large enough that per-block costs vanish, small enough to keep memory flat. */
export const RELOCATE_BLOCK_BYTES = 1024 * 1024;

/**
 * Copies `source` to a new `target`, replacing the `pairs` paths. One pass over the file in large blocks cut
 * after their last newline (a path never holds a newline, so no occurrence and no escaped line straddles two
 * blocks; the cut tail is carried into the next block). Old paths are found on the bytes with
 * `Buffer.indexOf`; a block without any passes through as it is, and untouched spans are written as slices of
 * the block, never decoded. Only a JSON line holding an escape that could spell a path (`\/`, `\u`) is decoded
 * and rewritten string by string. Memory stays at one block (or the longest line, if longer).
 */
export async function relocateFile(
  source: string,
  target: string,
  pairs: readonly PathPair[],
  kind: RelocatedText,
  signal?: AbortSignal,
  blockBytes = RELOCATE_BLOCK_BYTES,
): Promise<void> {
  throwIfAborted(signal, "Relocating the conversation");
  const find = createBytePathFinder(pairs);
  // Nothing to rewrite: the kernel copies (reflink where the filesystem has it).
  if (find === undefined) return copyFile(source, target, constants.COPYFILE_EXCL);
  const rewriteBlock = blockRewriter(find, kind === "json" ? createPathRewriter(pairs) : undefined);
  const input = await open(source, "r");
  let output: FileHandle | undefined;
  // Two blocks: the next one is read and searched while the previous one is being written.
  let writing: Promise<void> = Promise.resolve();
  try {
    output = await open(target, "wx");
    let block = Buffer.allocUnsafe(blockBytes);
    let spare = Buffer.allocUnsafe(blockBytes);
    let filled = 0;
    for (;;) {
      throwIfAborted(signal, "Relocating the conversation");
      const { bytesRead } = await input.read(block, filled, block.length - filled, null);
      filled += bytesRead;
      const done = bytesRead === 0;
      const end = done ? filled : block.lastIndexOf(0x0a, filled - 1) + 1;
      if (end === 0 && !done) {
        // One line fills the block: grow it (up to the line limit) rather than cut the line.
        if (block.length >= MAX_LINE_BYTES) {
          throw new OutpostError(
            "limit",
            `A line longer than ${MAX_LINE_BYTES} bytes cannot be relocated. Check the transcript is not corrupt.`,
            { details: { source } },
          );
        }
        const larger = Buffer.allocUnsafe(Math.min(block.length * 2, MAX_LINE_BYTES));
        block.copy(larger, 0, 0, filled);
        block = larger;
        continue;
      }
      const out = end > 0 ? rewriteBlock(block.subarray(0, end)) : [];
      // Writes go one after the other; once the previous one is done, its block (the spare) is free again.
      await writing;
      writing = writeAll(output, out);
      writing.catch(() => undefined);
      if (done) break;
      if (spare.length < block.length) spare = Buffer.allocUnsafe(block.length);
      // The unfinished last line moves to the front of the spare block, which becomes the next one.
      block.copy(spare, 0, end, filled);
      filled -= end;
      [block, spare] = [spare, block];
    }
    await writing;
    await output.close();
    output = undefined;
  } catch (error) {
    await writing.catch(() => undefined);
    await output?.close().catch(() => undefined);
    if (output !== undefined) await rm(target, { force: true });
    throw error;
  } finally {
    await input.close();
  }
}

/** Rewrites a block of whole lines into a list of buffers: slices of the block, replacements, decoded lines. */
function blockRewriter(find: (view: Buffer) => PathHit[], text: ((line: string) => string) | undefined): (view: Buffer) => Buffer[] {
  return (view) => {
    const hits = find(view);
    const escaped = text === undefined ? [] : escapedJsonLines(view);
    if (hits.length === 0 && escaped.length === 0) return [view];
    const out: Buffer[] = [];
    let last = 0;
    let hit = 0;
    for (let index = 0; index < escaped.length; index += 2) {
      const start = escaped[index]!;
      const end = escaped[index + 1]!;
      hit = spliceHits(view, last, start, hits, hit, out);
      out.push(Buffer.from(rewriteJsonLine(view.toString("utf8", start, end), text!)));
      while (hit < hits.length && hits[hit]!.at < end) hit += 1;
      last = end;
    }
    spliceHits(view, last, view.length, hits, hit, out);
    return out;
  };
}

async function writeAll(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  if (buffers.length === 0) return;
  let pending = buffers;
  for (;;) {
    const { bytesWritten } = await handle.writev(pending);
    let left = bytesWritten;
    let index = 0;
    while (index < pending.length && left >= pending[index]!.length) left -= pending[index++]!.length;
    if (index === pending.length) return;
    // A short write (rare on regular files): go on from the first byte not written.
    pending = [pending[index]!.subarray(left), ...pending.slice(index + 1)];
  }
}

/** Lines without escapes are rewritten in one pass; the others string by string. */
export function rewriteJsonBlock(block: string, rewrite: (text: string) => string): string {
  if (!block.includes("\\/") && !/(?<!\\)(?:\\\\)*\\u/.test(block)) return rewrite(block);
  const lines = block.split("\n");
  for (let index = 0; index < lines.length; index += 1) lines[index] = rewriteJsonLine(lines[index]!, rewrite);
  return lines.join("\n");
}
