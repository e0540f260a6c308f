import { ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { assertTransportKey, throwIfAborted, type OutpostError, type TransportEntry } from "@outpost/core";
import { FRAME_BYTES } from "./object-frame.js";

export interface ListPages {
  readonly client: S3Client;
  readonly bucket: string;
  readonly base: string;
  readonly prefix: string;
  readonly signal?: AbortSignal;
  readonly failure: (error: unknown, action: string, key: string | undefined, signal?: AbortSignal) => Promise<OutpostError>;
}

/**
 * Follows ListObjectsV2 continuation tokens. Tombstones and foreign objects (shorter than a frame, or
 * with keys a transport would refuse) are skipped.
 */
export async function* listPages(request: ListPages): AsyncGenerator<TransportEntry> {
  let token: string | undefined;
  do {
    throwIfAborted(request.signal, `Listing ${request.prefix}`);
    let page;
    try {
      page = await request.client.send(
        new ListObjectsV2Command({
          Bucket: request.bucket,
          Prefix: request.base + request.prefix,
          ContinuationToken: token,
        }),
        { abortSignal: request.signal },
      );
    } catch (error) {
      throw await request.failure(error, `Listing ${request.prefix || "all keys"}`, undefined, request.signal);
    }
    for (const object of page.Contents ?? []) {
      if (!object.Key || !object.ETag || (object.Size ?? 0) < FRAME_BYTES) continue;
      const key = object.Key.slice(request.base.length);
      if (!isTransportKey(key)) continue;
      yield {
        key,
        revision: object.ETag.replace(/^W\//, "").replace(/^"|"$/g, ""),
        size: (object.Size ?? 0) - FRAME_BYTES,
        modifiedAt: (object.LastModified ?? new Date()).toISOString(),
      };
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

function isTransportKey(key: string): boolean {
  try {
    assertTransportKey(key);
    return true;
  } catch {
    return false;
  }
}
