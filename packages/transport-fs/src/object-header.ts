import { createHash, randomBytes } from "node:crypto";

// Every object file starts with a fixed-size text header, so a reader learns the revision and the
// payload size from one small read, and can verify the payload without any sidecar file.
const MAGIC = "OUTPOST1";
export const HEADER_BYTES = MAGIC.length + 1 + 32 + 1 + 64 + 1;

export interface ObjectHeader {
  readonly revision: string;
  readonly sha256: string;
}

export function newRevision(): string {
  return randomBytes(16).toString("hex");
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function encodeHeader(header: ObjectHeader): Buffer {
  return Buffer.from(`${MAGIC} ${header.revision} ${header.sha256}\n`, "latin1");
}

/** Parses a header; `undefined` when the bytes are not one (a corrupt or foreign file). */
export function decodeHeader(bytes: Uint8Array): ObjectHeader | undefined {
  if (bytes.byteLength < HEADER_BYTES) return undefined;
  const match = /^OUTPOST1 ([0-9a-f]{32}) ([0-9a-f]{64})\n$/.exec(Buffer.from(bytes.subarray(0, HEADER_BYTES)).toString("latin1"));
  if (!match?.[1] || !match[2]) return undefined;
  return { revision: match[1], sha256: match[2] };
}
