import { DeleteObjectCommand, HeadObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { setTimeout as sleep } from "node:timers/promises";
import { OutpostError } from "@outpost/core";
import { conditionalPut } from "./conditional-put.js";
import { CLAIM_BYTES, claimMarker, tombstone, TOMBSTONE_BYTES } from "./object-frame.js";
import { isNotFound, isPreconditionFailed } from "./s3-failure.js";

// Why claims: a store may check a PUT's precondition and store the body as two steps. moto does (it
// releases the GIL while hashing a large body in between), so two large conditional writes can both
// pass the check. A create-only writer of a large object therefore first wins the key with a tiny
// conditional PUT (a claim, which reads as absent), then stores its body with If-Match on the claim.

export interface ClaimContext {
  readonly client: S3Client;
  readonly bucket: string;
  /** A claim older than this (by the store's Last-Modified) may be taken over: its writer is presumed dead. */
  readonly leaseMs: number;
  readonly signal?: AbortSignal;
}

export interface HeldClaim {
  readonly etag: string;
  /** `performance.now()` when the claim was stored or last renewed. */
  placedAt: number;
  /** Its bytes: stored again unchanged to renew it (same ETag, new Last-Modified). */
  readonly body: Buffer;
}

/** What a create-only writer finds at a key: nothing, something it may replace (by ETag), or a live object. */
export type KeyState =
  | { readonly state: "missing" }
  | { readonly state: "vacant"; readonly etag: string }
  /** Another writer's claim, live until `freesAt` (then it may be taken over). */
  | { readonly state: "claimed"; readonly claimedAt: Date; readonly freesAt: Date }
  | { readonly state: "taken" };

export async function probeKey(context: ClaimContext, objectKey: string): Promise<KeyState> {
  const head = await context.client
    .send(new HeadObjectCommand({ Bucket: context.bucket, Key: objectKey }), { abortSignal: context.signal })
    .catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  if (!head) return { state: "missing" };
  if (!head.ETag) return { state: "taken" };
  if (head.ContentLength === TOMBSTONE_BYTES) return { state: "vacant", etag: head.ETag };
  const age = head.LastModified ? Date.now() - head.LastModified.getTime() : 0;
  if (head.ContentLength === CLAIM_BYTES && age > context.leaseMs) return { state: "vacant", etag: head.ETag };
  if (head.ContentLength === CLAIM_BYTES && head.LastModified) {
    return { state: "claimed", claimedAt: head.LastModified, freesAt: new Date(head.LastModified.getTime() + context.leaseMs) };
  }
  return { state: "taken" };
}

/**
 * The conflict a create-only writer gets while another writer's claim holds the key: that writer may
 * still be writing, or may have failed without giving the claim back; either way the key frees by itself
 * when the claim's lease ends.
 */
export function claimedConflict(key: string, found: Extract<KeyState, { state: "claimed" }>, leaseMs: number): OutpostError {
  return new OutpostError(
    "conflict",
    `Writing ${key} found it claimed by another writer since ${found.claimedAt.toISOString()}. If that writer is still at work, ` +
      `read the key again once it is done; if it failed, the key frees at ${found.freesAt.toISOString()} (the ${leaseMs} ms claim lease), then retry.`,
    {
      details: { key, claimedAt: found.claimedAt.toISOString(), freesAt: found.freesAt.toISOString(), leaseMs },
    },
  );
}

/**
 * Stores a claim at `objectKey` over nothing, a tombstone or an expired claim. The loser of a race
 * gets a precondition failure (code `conflict` once mapped); the winner must still `verifyClaim`.
 */
export async function placeClaim(context: ClaimContext, objectKey: string): Promise<HeldClaim> {
  const { client, bucket, signal } = context;
  const body = claimMarker();
  let etag: string | undefined;
  try {
    etag = await conditionalPut(client, bucket, objectKey, body, { IfNoneMatch: "*" }, signal);
  } catch (error) {
    if (!isPreconditionFailed(error)) throw error;
    const found = await probeKey(context, objectKey);
    if (found.state === "claimed") throw claimedConflict(objectKey, found, context.leaseMs);
    if (found.state !== "vacant") throw error;
    etag = await conditionalPut(client, bucket, objectKey, body, { IfMatch: found.etag }, signal);
  }
  if (!etag)
    throw new OutpostError(
      "transport",
      `S3 returned no ETag for the claim on ${objectKey}. Use an S3-compatible store that returns ETags.`,
      { details: { objectKey } },
    );
  return { etag, placedAt: performance.now(), body };
}

/**
 * moto checks a precondition and stores the body as two steps, also for small bodies (measured with
 * 1 KB: 1 race in 30 let both writers pass). Both then store; the later store wins, and the writer whose
 * claim was overwritten sees it here, one round trip later, long after the other's store landed.
 */
export async function verifyClaim(context: ClaimContext, objectKey: string, claim: HeldClaim): Promise<void> {
  const { bucket, signal } = context;
  const now = await context.client
    .send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey }), { abortSignal: signal })
    .catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  if (now?.ETag !== claim.etag)
    throw Object.assign(new Error(`another writer's claim replaced this one on ${objectKey}`), { name: "PreconditionFailed" });
}

/**
 * Refuses to complete a write whose claim is older than half the lease: past the lease another writer
 * may take the claim over, and a store that ignores If-Match on CompleteMultipartUpload (moto) would
 * then let this completion overwrite it.
 */
export function assertClaimFresh(claim: HeldClaim, leaseMs: number, key: string): void {
  const heldMs = performance.now() - claim.placedAt;
  if (heldMs <= leaseMs / 2) return;
  throw new OutpostError(
    "conflict",
    `Writing ${key} held its claim for ${Math.round(heldMs)} ms, over half the ${leaseMs} ms claim lease, so another writer may own the key now. Read it again and retry.`,
    { details: { key, heldMs, leaseMs } },
  );
}

/**
 * Gives a claim back after a failed write, so the key is free at once rather than after the lease. The
 * failure that ended the write (a dropped connection, a link that is down for a while) often hits the
 * release too, so the release does not end with the write: two quick tries, then it goes on in the
 * background, each try on a new request, until the claim is gone or its lease would have freed it anyway.
 * A claim already replaced or gone needs nothing. Returns whether the claim is known to be gone now.
 */
export async function releaseClaim(
  context: ClaimContext,
  objectKey: string,
  claim: HeldClaim,
  removeMode: "tombstone" | "conditional-delete",
): Promise<boolean> {
  const attempt = () => releaseOnce(context, objectKey, claim, removeMode);
  if ((await attempt()) || (await sleep(200).then(attempt))) return true;
  void (async () => {
    for (let delayMs = 500; performance.now() < claim.placedAt + context.leaseMs; delayMs = Math.min(delayMs * 2, 5_000)) {
      await sleep(delayMs, undefined, { ref: false });
      if (await attempt()) return;
    }
  })();
  return false;
}

async function releaseOnce(
  context: ClaimContext,
  objectKey: string,
  claim: HeldClaim,
  removeMode: "tombstone" | "conditional-delete",
): Promise<boolean> {
  const { client, bucket } = context;
  try {
    // Without the caller's signal: the cleanup must run even when the caller gave up.
    if (removeMode === "tombstone") await conditionalPut(client, bucket, objectKey, tombstone(), { IfMatch: claim.etag });
    else await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey, IfMatch: claim.etag }));
    return true;
  } catch (error) {
    return isPreconditionFailed(error) || isNotFound(error);
  }
}
