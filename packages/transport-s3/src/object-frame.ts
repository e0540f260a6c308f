import { createHash, randomBytes } from "node:crypto";

// S3 ETags of single-part objects are the MD5 of the body, so identical bytes would get identical
// revisions. Every stored object therefore starts with a small frame holding a random nonce (the ETag
// changes on every write) and the payload's SHA-256 (verified on every read, also for multipart objects).
const LIVE_MAGIC = Buffer.from("OPS1", "latin1");
const TOMBSTONE_MAGIC = Buffer.from("OPT1", "latin1");
const CLAIM_MAGIC = Buffer.from("OPC1", "latin1");
const NONCE_BYTES = 16;
export const FRAME_BYTES = LIVE_MAGIC.length + NONCE_BYTES + 32;
/** Tombstones are shorter than any live object, so a listing recognizes them by size alone. */
export const TOMBSTONE_BYTES = TOMBSTONE_MAGIC.length + NONCE_BYTES;
/** A claim (see key-claim.ts) is shorter than a frame too, and longer than a tombstone: magic, nonce, claimed-at. */
export const CLAIM_BYTES = CLAIM_MAGIC.length + NONCE_BYTES + 8;

export type DecodedObject =
  | { readonly kind: "live"; readonly sha256: Buffer; readonly payload: Uint8Array }
  | { readonly kind: "tombstone" }
  | { readonly kind: "claim" }
  | { readonly kind: "foreign"; readonly why: string };

export function sha256(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(bytes).digest();
}

/** The frame to put in front of `payload`. */
export function frameHeader(payload: Uint8Array): Buffer {
  return Buffer.concat([LIVE_MAGIC, randomBytes(NONCE_BYTES), sha256(payload)]);
}

export function tombstone(): Buffer {
  return Buffer.concat([TOMBSTONE_MAGIC, randomBytes(NONCE_BYTES)]);
}

/** The body of a claim: the nonce names the claiming writer; the time is for people inspecting the bucket. */
export function claimMarker(): Buffer {
  const claimedAt = Buffer.alloc(8);
  claimedAt.writeBigUInt64BE(BigInt(Date.now()));
  return Buffer.concat([CLAIM_MAGIC, randomBytes(NONCE_BYTES), claimedAt]);
}

/** Splits a stored body into frame and payload; does not verify the payload (see `verifyPayload`). */
export function decodeObject(body: Uint8Array): DecodedObject {
  const view = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (view.byteLength === TOMBSTONE_BYTES && view.subarray(0, 4).equals(TOMBSTONE_MAGIC)) return { kind: "tombstone" };
  if (view.byteLength === CLAIM_BYTES && view.subarray(0, 4).equals(CLAIM_MAGIC)) return { kind: "claim" };
  if (view.byteLength < FRAME_BYTES || !view.subarray(0, 4).equals(LIVE_MAGIC)) {
    return { kind: "foreign", why: "it does not start with an Outpost frame" };
  }
  return { kind: "live", sha256: view.subarray(4 + NONCE_BYTES, FRAME_BYTES), payload: body.subarray(FRAME_BYTES) };
}

export function payloadMatches(object: { readonly sha256: Buffer; readonly payload: Uint8Array }): boolean {
  return sha256(object.payload).equals(object.sha256);
}
