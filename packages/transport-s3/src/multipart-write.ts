import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { PutCondition } from "./conditional-put.js";
import { sha256 } from "./object-frame.js";

export interface MultipartWrite {
  readonly client: S3Client;
  readonly bucket: string;
  readonly objectKey: string;
  readonly chunks: readonly Uint8Array[];
  readonly partBytes: number;
  readonly concurrency: number;
  readonly signal?: AbortSignal;
  /** Called once every part is stored: the precondition of the completion (e.g. If-Match on a claim just won). */
  readonly completeWhen: () => Promise<PutCondition>;
}

/**
 * Uploads a large object in parts, each with its SHA-256, and completes it under the precondition
 * `completeWhen` returns: the object appears whole or not at all. On any failure (also one thrown by
 * `completeWhen`) the upload is aborted (best effort) so no parts linger. Returns the ETag.
 */
export async function multipartWrite(write: MultipartWrite): Promise<string | undefined> {
  const { client, bucket, objectKey, signal } = write;
  const body = Buffer.concat(write.chunks);
  const created = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: objectKey, ChecksumAlgorithm: "SHA256" }), {
    abortSignal: signal,
  });
  const uploadId = created.UploadId;
  try {
    const count = Math.ceil(body.byteLength / write.partBytes);
    const parts: CompletedPart[] = new Array(count);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(write.concurrency, count) }, async () => {
        while (next < count) {
          const index = next;
          next += 1;
          const part = body.subarray(index * write.partBytes, Math.min((index + 1) * write.partBytes, body.byteLength));
          const checksum = sha256(part).toString("base64");
          const uploaded = await client.send(
            new UploadPartCommand({
              Bucket: bucket,
              Key: objectKey,
              UploadId: uploadId,
              PartNumber: index + 1,
              Body: part,
              ContentLength: part.byteLength,
              ChecksumAlgorithm: "SHA256",
              ChecksumSHA256: checksum,
            }),
            { abortSignal: signal },
          );
          parts[index] = { PartNumber: index + 1, ETag: uploaded.ETag, ChecksumSHA256: uploaded.ChecksumSHA256 ?? checksum };
        }
      }),
    );
    const condition = await write.completeWhen();
    const completed = await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: objectKey,
        UploadId: uploadId,
        ...condition,
        MultipartUpload: { Parts: parts },
      }),
      { abortSignal: signal },
    );
    return completed.ETag;
  } catch (error) {
    // Without the abort signal: the cleanup must run even when the caller gave up.
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: objectKey, UploadId: uploadId })).catch(() => undefined);
    throw error;
  }
}
