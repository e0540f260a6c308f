import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

/** Hex SHA-256 of a file's bytes, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Hex SHA-256 of a text (a link's target). */
export function textSha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
