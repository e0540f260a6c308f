import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";

// Below this size one read is much cheaper than a stream.
const STREAM_FROM_BYTES = 1024 * 1024;

/** Hex SHA-256 of a file's bytes; large files are streamed. */
export async function fileSha256(path: string, size: number): Promise<string> {
  const hash = createHash("sha256");
  if (size < STREAM_FROM_BYTES) return hash.update(await readFile(path)).digest("hex");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Hex SHA-256 of a text (a link's target). */
export function textSha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
