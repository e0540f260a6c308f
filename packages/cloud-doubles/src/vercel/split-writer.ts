import type { ServerResponse } from "node:http";

/**
 * Writes an ndjson stream as the Sandbox API sends it: raw UTF-8 JSON (no `\u` escapes), in network chunks
 * whose edges may fall inside a multibyte character. @vercel/sandbox 3.5.0 parses the stream with
 * `jsonlines` (`jsonlines/lib/parser.js`: `chunk.toString()` on each chunk), which garbles a character cut
 * that way; the same is reported against the real API. So the double cuts every line that holds one inside
 * its first multibyte character, as two chunks, in order.
 */
export class SplitLineWriter {
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly response: ServerResponse) {}

  write(line: string): void {
    const bytes = Buffer.from(line);
    const lead = bytes.findIndex((byte) => byte >= 0xc0);
    const parts = lead === -1 ? [bytes] : [bytes.subarray(0, lead + 1), bytes.subarray(lead + 1)];
    this.queue = this.queue.then(async () => {
      for (const [index, part] of parts.entries()) {
        if (this.response.destroyed) return;
        // A pause the client can read in: parts that arrive together may be read as one chunk.
        if (index > 0) await new Promise((resolve) => setTimeout(resolve, 3));
        this.response.write(part);
      }
    });
  }

  /** Ends the stream after what was written, with a last line when given. */
  end(line?: string): void {
    if (line !== undefined) this.write(line);
    this.queue = this.queue.then(() => void this.response.end());
  }
}
