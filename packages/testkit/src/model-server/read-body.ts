import type { IncomingMessage } from "node:http";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

export interface BodyRead {
  readonly text: string;
  readonly error?: { readonly status: number; readonly message: string };
}

const DECODERS: Readonly<Record<string, (data: Buffer) => Buffer>> = {
  gzip: gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** Reads a request body up to `limit` bytes, decompressing gzip/deflate/br; too large or undecodable bodies become errors. */
export async function readBody(request: IncomingMessage, limit: number): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    // Keep draining so the client sees the 413 instead of a reset connection.
    if (size > limit) tooLarge = true;
    else chunks.push(chunk as Buffer);
  }
  if (tooLarge) return { text: "", error: { status: 413, message: `request body over ${limit} bytes` } };
  const raw = Buffer.concat(chunks);
  const encoding = (request.headers["content-encoding"] ?? "identity").toLowerCase();
  if (encoding === "identity" || encoding === "") return { text: raw.toString("utf8") };
  const decode = DECODERS[encoding];
  if (!decode) return { text: "", error: { status: 415, message: `unsupported content-encoding ${encoding}` } };
  try {
    return { text: decode(raw).toString("utf8") };
  } catch {
    return { text: "", error: { status: 400, message: `body is not valid ${encoding}` } };
  }
}
