import { PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { sha256 } from "./object-frame.js";

/** The precondition of a write: create only (`If-None-Match: *`), or replace one ETag (`If-Match`). */
export type PutCondition = { readonly IfNoneMatch: "*" } | { readonly IfMatch: string };

/** One PUT with a precondition and the body's SHA-256. Returns the new ETag as S3 sent it (quoted). */
export async function conditionalPut(
  client: S3Client,
  bucket: string,
  objectKey: string,
  body: Buffer,
  condition: PutCondition,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const response = await client.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: objectKey,
      Body: body,
      ContentLength: body.byteLength,
      ChecksumAlgorithm: "SHA256",
      ChecksumSHA256: sha256(body).toString("base64"),
      ...condition,
    }),
    { abortSignal: signal },
  );
  return response.ETag;
}
