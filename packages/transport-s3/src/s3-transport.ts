import { DeleteObjectCommand, GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import {
  assertTransportKey,
  assertTransportPrefix,
  OutpostError,
  throwIfAborted,
  type Transport,
  type TransportEntry,
  type TransportObject,
  type TransportReadOptions,
  type TransportRemoveOptions,
  type TransportWriteOptions,
} from "@outpost/core";
import { describeEndpoint } from "./describe-endpoint.js";
import { listPages } from "./list-pages.js";
import { mapS3Error, type S3ErrorContext } from "./map-s3-error.js";
import { conditionalPut, type PutCondition } from "./conditional-put.js";
import {
  assertClaimFresh,
  claimedConflict,
  placeClaim,
  probeKey,
  releaseClaim,
  verifyClaim,
  type ClaimContext,
  type HeldClaim,
} from "./key-claim.js";
import { multipartWrite } from "./multipart-write.js";
import { whileRenewed } from "./claim-renewal.js";
import { decodeObject, FRAME_BYTES, frameHeader, payloadMatches, tombstone } from "./object-frame.js";
import { isNotFound, isPreconditionFailed } from "./s3-failure.js";

/** How `remove` keeps its promise never to delete someone else's replacement. */
export type S3RemoveMode = "conditional-delete" | "tombstone";

export interface S3TransportConfig {
  readonly client: S3Client;
  readonly bucket: string;
  /** Prepended to every key, e.g. "outpost/"; a trailing "/" is added when missing. Default: none. */
  readonly prefix?: string;
  /**
   * Default "tombstone": remove overwrites the object with a tombstone through a conditional PUT.
   * "conditional-delete" uses `DeleteObject` with `If-Match`; only for stores where that is atomic (see README).
   */
  readonly removeMode?: S3RemoveMode;
  /** Create-only objects above this size go through multipart upload. Default 16 MiB. */
  readonly multipartThresholdBytes?: number;
  /** Part size of multipart uploads (S3 minimum: 5 MiB). Default 8 MiB. */
  readonly partBytes?: number;
  /** Parts uploaded at once. Default 4. */
  readonly partConcurrency?: number;
  /**
   * Create-only objects above this size (frame included) first win the key with a small claim object,
   * then store their body with If-Match on it (see README). Default 1 MiB.
   */
  readonly claimAboveBytes?: number;
  /** A claim older than this may be taken over by another create-only writer (its writer is presumed dead). Default 30 s: a writer renews its claim while it writes. */
  readonly claimLeaseMs?: number;
  /** Default "s3". */
  readonly name?: string;
}

const MIB = 1024 * 1024;
const SINGLE_PUT_LIMIT = 5 * 1024 * MIB;

/** A `Transport` on an S3 bucket: ETag revisions, conditional writes and removes, verified SHA-256. */
export function s3Transport(config: S3TransportConfig): Transport {
  const { client, bucket } = validate(config);
  const base = config.prefix ? (config.prefix.endsWith("/") ? config.prefix : `${config.prefix}/`) : "";
  const removeMode = config.removeMode ?? "tombstone";
  const threshold = config.multipartThresholdBytes ?? 16 * MIB;
  const partBytes = config.partBytes ?? 8 * MIB;
  const claimAbove = config.claimAboveBytes ?? MIB;
  const leaseMs = config.claimLeaseMs ?? 30_000;
  const endpoint = describeEndpoint(client);
  const failure = async (error: unknown, action: string, key: string | undefined, signal?: AbortSignal) =>
    mapS3Error(error, { action, key, bucket, endpoint: await endpoint, signal } satisfies S3ErrorContext);

  async function put(key: string, body: Buffer, condition: PutCondition, signal?: AbortSignal): Promise<string> {
    return revisionOf(await conditionalPut(client, bucket, base + key, body, condition, signal), key);
  }

  /** A small create: If-None-Match, or If-Match over a tombstone or an expired claim found in its place. */
  async function smallCreate(key: string, body: Buffer, signal?: AbortSignal): Promise<string> {
    try {
      return await put(key, body, { IfNoneMatch: "*" }, signal);
    } catch (error) {
      if (!isPreconditionFailed(error)) throw error;
      const found = await probeKey({ client, bucket, leaseMs, signal }, base + key);
      if (found.state === "claimed") throw claimedConflict(key, found, leaseMs);
      if (found.state !== "vacant") throw error;
      return put(key, body, { IfMatch: found.etag }, signal);
    }
  }

  /** A large create: win the key with a claim, then store the body with If-Match on the claim. */
  async function claimedCreate(key: string, header: Buffer, bytes: Uint8Array, size: number, signal?: AbortSignal): Promise<string> {
    const objectKey = base + key;
    const context: ClaimContext = { client, bucket, leaseMs, signal };
    let claim: HeldClaim | undefined;
    const claimKey = async (): Promise<PutCondition> => {
      claim = await placeClaim(context, objectKey);
      await verifyClaim(context, objectKey, claim);
      assertClaimFresh(claim, leaseMs, key);
      return { IfMatch: claim.etag };
    };
    try {
      if (size <= threshold) {
        const condition = await claimKey();
        const body = Buffer.concat([header, bytes]);
        return revisionOf(
          await whileRenewed(context, objectKey, claim!, () => conditionalPut(client, bucket, objectKey, body, condition, signal)),
          key,
        );
      }
      // Parts first, claim last: a lost race costs the upload, but a crashed writer blocks the key for
      // one completion at most. A live object is refused before uploading anything.
      const found = await probeKey(context, objectKey);
      if (found.state === "claimed") throw claimedConflict(key, found, leaseMs);
      if (found.state === "taken") throw Object.assign(new Error(`${key} exists`), { name: "PreconditionFailed" });
      const concurrency = config.partConcurrency ?? 4;
      return revisionOf(
        await multipartWrite({
          client,
          bucket,
          objectKey,
          chunks: [header, bytes],
          partBytes,
          concurrency,
          signal,
          completeWhen: claimKey,
        }),
        key,
      );
    } catch (error) {
      if (claim) await releaseClaim(context, objectKey, claim, removeMode);
      throw error;
    }
  }

  return {
    specificationVersion: "v1",
    name: config.name ?? "s3",

    async read(key: string, options: TransportReadOptions = {}): Promise<TransportObject | undefined> {
      assertTransportKey(key);
      const { maxBytes, signal } = options;
      if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 0)) {
        throw new OutpostError("configuration", `maxBytes must be a non-negative integer, got ${maxBytes}. Pass a byte count.`, {
          details: { maxBytes },
        });
      }
      throwIfAborted(signal, `Reading ${key}`);
      try {
        // With a limit, a ranged GET fetches at most one byte more than allowed: never the whole object.
        const response = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: base + key,
            ...(maxBytes === undefined ? { ChecksumMode: "ENABLED" } : { Range: `bytes=0-${FRAME_BYTES + maxBytes}` }),
          }),
          { abortSignal: signal },
        );
        const total = totalSize(response.ContentRange) ?? response.ContentLength ?? 0;
        if (maxBytes !== undefined && total - FRAME_BYTES > maxBytes) {
          (response.Body as { destroy?: () => void } | undefined)?.destroy?.();
          throw new OutpostError(
            "limit",
            `${key} is ${total - FRAME_BYTES} bytes, over the ${maxBytes}-byte limit. Raise maxBytes or read a smaller object.`,
            { details: { key, size: total - FRAME_BYTES, maxBytes } },
          );
        }
        const body = (await response.Body?.transformToByteArray()) ?? new Uint8Array(0);
        // ChecksumMode "ENABLED" makes the SDK compare the body with S3's SHA-256 while streaming it (also
        // under responseChecksumValidation "WHEN_REQUIRED"); the frame's own SHA-256 is checked below.
        const decoded = decodeObject(body);
        if (decoded.kind === "tombstone" || decoded.kind === "claim") return undefined;
        if (decoded.kind === "foreign") throw corrupt(key, decoded.why);
        if (!payloadMatches(decoded)) throw corrupt(key, "its bytes do not match the SHA-256 recorded when it was written");
        return {
          key,
          revision: revisionOf(response.ETag, key),
          size: decoded.payload.byteLength,
          modifiedAt: (response.LastModified ?? new Date()).toISOString(),
          bytes: decoded.payload,
        };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        if (error instanceof Error && error.message.startsWith("Checksum mismatch"))
          throw corrupt(key, "the SDK found its bytes differ from the SHA-256 S3 stored", error);
        throw await failure(error, `Reading ${key}`, key, signal);
      }
    },

    async write(key: string, bytes: Uint8Array, options: TransportWriteOptions): Promise<TransportEntry> {
      assertTransportKey(key);
      const { signal, ifRevision } = options ?? {};
      throwIfAborted(signal, `Writing ${key}`);
      if (ifRevision !== null && (typeof ifRevision !== "string" || ifRevision.length === 0)) {
        throw new OutpostError(
          "configuration",
          "write needs ifRevision: null to create, or the revision you read to replace. Pass one of them.",
          { details: { key } },
        );
      }
      const header = frameHeader(bytes);
      const size = FRAME_BYTES + bytes.byteLength;
      // Replacements always use one PUT: moto ignores If-Match on CompleteMultipartUpload, and a claim
      // would make the object read as absent while it is being replaced.
      if (ifRevision !== null && size > SINGLE_PUT_LIMIT) {
        throw new OutpostError("limit", `Replacing ${key} (${size} bytes) needs a single PUT, limited to 5 GiB. Write a new key instead.`, {
          details: { key, size },
        });
      }
      try {
        const revision =
          ifRevision !== null
            ? await put(key, Buffer.concat([header, bytes]), { IfMatch: quoted(ifRevision) }, signal)
            : size > claimAbove || size > threshold
              ? await claimedCreate(key, header, bytes, size, signal)
              : await smallCreate(key, Buffer.concat([header, bytes]), signal);
        return { key, revision, size: bytes.byteLength, modifiedAt: new Date().toISOString() };
      } catch (error) {
        // A replacement of a missing key answers 404 on S3: the revision did not match anything.
        if (ifRevision !== null && isNotFound(error))
          throw await failure(Object.assign(new Error("missing"), { name: "PreconditionFailed" }), `Writing ${key}`, key, signal);
        throw await failure(error, `Writing ${key}`, key, signal);
      }
    },

    async remove(key: string, options: TransportRemoveOptions): Promise<void> {
      assertTransportKey(key);
      throwIfAborted(options?.signal, `Removing ${key}`);
      if (typeof options?.ifRevision !== "string" || options.ifRevision.length === 0) {
        throw new OutpostError("configuration", `remove(${key}) needs ifRevision: the revision you read. Read the object first.`, {
          details: { key },
        });
      }
      const { signal, ifRevision } = options;
      try {
        if (removeMode === "tombstone") {
          await put(key, tombstone(), { IfMatch: quoted(ifRevision) }, signal);
        } else {
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: base + key, IfMatch: quoted(ifRevision) }), {
            abortSignal: signal,
          });
        }
      } catch (error) {
        if (isNotFound(error))
          throw await failure(Object.assign(new Error("missing"), { name: "PreconditionFailed" }), `Removing ${key}`, key, signal);
        throw await failure(error, `Removing ${key}`, key, signal);
      }
    },

    list(prefix = "", options: { readonly signal?: AbortSignal } = {}): AsyncIterable<TransportEntry> {
      return {
        [Symbol.asyncIterator]: () => {
          assertTransportPrefix(prefix);
          return listPages({ client, bucket, base, prefix, signal: options.signal, failure });
        },
      };
    },
  };
}

function validate(config: S3TransportConfig): S3TransportConfig {
  if (!config?.client || typeof config.client.send !== "function") {
    throw new OutpostError("configuration", "s3Transport needs an S3Client. Pass { client: new S3Client({...}), bucket }.");
  }
  if (typeof config.bucket !== "string" || config.bucket.length === 0) {
    throw new OutpostError("configuration", 's3Transport needs a bucket name. Pass { bucket: "my-bucket" }.');
  }
  if (config.prefix) assertTransportPrefix(config.prefix.endsWith("/") ? config.prefix : `${config.prefix}/`);
  for (const option of ["claimAboveBytes", "claimLeaseMs", "multipartThresholdBytes"] as const) {
    const value = config[option];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new OutpostError(
        "configuration",
        `${option} must be a non-negative integer, got ${value}. Pass a number of ${option === "claimLeaseMs" ? "milliseconds" : "bytes"}.`,
        { details: { [option]: value } },
      );
    }
  }
  if (config.partBytes !== undefined && config.partBytes < 5 * MIB) {
    throw new OutpostError("configuration", `partBytes must be at least 5 MiB (S3's minimum part size), got ${config.partBytes}.`);
  }
  return config;
}

function revisionOf(etag: string | undefined, key: string): string {
  if (!etag)
    throw new OutpostError("transport", `S3 returned no ETag for ${key}. Use an S3-compatible store that returns ETags.`, {
      details: { key },
    });
  return etag.replace(/^W\//, "").replace(/^"|"$/g, "");
}

function quoted(revision: string): string {
  return `"${revision}"`;
}

function totalSize(contentRange: string | undefined): number | undefined {
  const total = contentRange?.split("/")[1];
  return total && total !== "*" ? Number(total) : undefined;
}

function corrupt(key: string, why: string, cause?: unknown): OutpostError {
  return new OutpostError("transport", `The stored object ${key} is corrupt: ${why}. Restore it from another copy or remove it.`, {
    cause,
    details: { key },
  });
}
