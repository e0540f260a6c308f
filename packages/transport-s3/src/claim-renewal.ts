import { HeadObjectCommand } from "@aws-sdk/client-s3";
import { OutpostError } from "@outpost/core";
import { conditionalPut } from "./conditional-put.js";
import type { ClaimContext, HeldClaim } from "./key-claim.js";

/**
 * Runs `write` (the body's PUT with If-Match on the claim) while renewing the claim every third of its lease, so
 * a claim stays short yet a slow write keeps its key: a renewal stores the claim's own bytes again, which keeps
 * its ETag (the body's If-Match still holds) and moves its Last-Modified. A store that checks a precondition and
 * stores as two steps (moto) could let a renewal land over the body: after a write that overlapped a renewal the
 * key is read back, and a body that is not there any more is code `conflict`.
 */
export async function whileRenewed(
  context: ClaimContext,
  objectKey: string,
  claim: HeldClaim,
  write: () => Promise<string | undefined>,
): Promise<string | undefined> {
  let pending: Promise<unknown> | undefined;
  let overlapped = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (pending || stopped) return;
    overlapped = true;
    // Not under the caller's signal, like a release: it must not fail with the write's request.
    pending = conditionalPut(context.client, context.bucket, objectKey, claim.body, { IfMatch: claim.etag })
      .then((etag) => {
        if (etag === claim.etag) claim.placedAt = performance.now();
      })
      .catch(() => undefined)
      .finally(() => {
        pending = undefined;
      });
  }, context.leaseMs / 3);
  timer.unref();
  let etag: string | undefined;
  try {
    etag = await write();
  } finally {
    stopped = true;
    clearInterval(timer);
    await pending;
  }
  if (!overlapped) return etag;
  const head = await context.client.send(new HeadObjectCommand({ Bucket: context.bucket, Key: objectKey }));
  if (head.ETag !== etag)
    throw new OutpostError(
      "conflict",
      `Writing ${objectKey} was overwritten while its claim was renewed (the store checks preconditions apart from storing). Write it again.`,
      { details: { objectKey } },
    );
  return etag;
}
