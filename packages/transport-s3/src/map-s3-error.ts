import { abortError, OutpostError } from "@outpost/core";
import { isPreconditionFailed, nameOf, statusOf } from "./s3-failure.js";

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"]);
const CREDENTIALS = new Set([
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "InvalidToken",
  "ExpiredToken",
  "CredentialsProviderError",
  "InvalidSecurity",
  "TokenRefreshRequired",
]);

export interface S3ErrorContext {
  /** What was being done, e.g. "Writing journals/a.json". */
  readonly action: string;
  readonly key?: string;
  readonly bucket: string;
  /** The endpoint without any user info, for "unreachable" messages. */
  readonly endpoint: string;
  readonly signal?: AbortSignal;
}

/**
 * Maps an SDK failure to an OutpostError. Credentials never reach the message, the details or the cause:
 * an SDK error holds the HTTP exchange, whose signed request names the access key, so the cause is a
 * summary of it (name, status, message, request id) rather than the SDK error itself.
 */
export function mapS3Error(raw: unknown, context: S3ErrorContext): OutpostError {
  if (OutpostError.isInstance(raw)) return raw;
  const error = summarize(raw);
  const details = { key: context.key, bucket: context.bucket, endpoint: context.endpoint, status: statusOf(error), s3Code: nameOf(error) };
  if (context.signal?.aborted) return abortError(context.signal, context.action);
  const name = nameOf(error);
  const errno = (error as { code?: string } | undefined)?.code ?? (error as { cause?: { code?: string } } | undefined)?.cause?.code;
  if (name === "AbortError") {
    return new OutpostError("aborted", `${context.action} was aborted. Retry if it is still needed.`, { cause: error, details });
  }
  if (isPreconditionFailed(error)) {
    return new OutpostError(
      "conflict",
      `${context.action} lost a race: another writer changed ${context.key ?? "the object"} first. Read it again and retry.`,
      { cause: error, details },
    );
  }
  if (CREDENTIALS.has(name) || (statusOf(error) === 403 && name !== "AccessDenied")) {
    return new OutpostError(
      "transport",
      `${context.action} failed: S3 at ${context.endpoint} refused the credentials (${name}). Check the access key and secret configured on the S3 client.`,
      { details },
    );
  }
  if (name === "AccessDenied" || statusOf(error) === 403) {
    return new OutpostError(
      "transport",
      `${context.action} failed: access denied to bucket ${context.bucket} (${name}). Grant the credentials s3:GetObject, s3:PutObject, s3:DeleteObject and s3:ListBucket on it.`,
      { details },
    );
  }
  if (name === "NoSuchBucket") {
    return new OutpostError(
      "transport",
      `${context.action} failed: bucket ${context.bucket} does not exist at ${context.endpoint}. Create it or fix the bucket option.`,
      { cause: error, details },
    );
  }
  if (name === "TimeoutError" || name === "RequestTimeout" || errno === "ETIMEDOUT") {
    return new OutpostError(
      "transport",
      `${context.action} failed: the S3 endpoint ${context.endpoint} did not answer in time (${errno ?? name}). Check that the server is running and not overloaded, then retry.`,
      { cause: error, details: { ...details, errno } },
    );
  }
  if (
    UNREACHABLE.has(name) ||
    (errno !== undefined && UNREACHABLE.has(errno)) ||
    /socket hang up|ECONNREFUSED|ECONNRESET/.test(String((error as Error | undefined)?.message))
  ) {
    return new OutpostError(
      "transport",
      `${context.action} failed: the S3 endpoint ${context.endpoint} is unreachable (${errno ?? name}). Check the endpoint and that the server is running, then retry.`,
      { cause: error, details: { ...details, errno } },
    );
  }
  const status = statusOf(error);
  return new OutpostError(
    "transport",
    `${context.action} failed: S3 answered ${name}${status ? ` (HTTP ${status})` : ""}. Check the bucket and endpoint configuration, then retry.`,
    { cause: error, details },
  );
}

/** A copy of an SDK or network error without the HTTP exchange it carries. */
function summarize(error: unknown): Error {
  const failure = error as
    | {
        name?: string;
        message?: string;
        code?: string;
        Code?: string;
        $metadata?: { httpStatusCode?: number; requestId?: string };
        cause?: { code?: string };
      }
    | undefined;
  const summary = new Error(String(failure?.message ?? error));
  Object.assign(summary, {
    name: failure?.name ?? "Error",
    code: failure?.code ?? failure?.cause?.code,
    Code: failure?.Code,
    $metadata: { httpStatusCode: failure?.$metadata?.httpStatusCode, requestId: failure?.$metadata?.requestId },
  });
  return summary;
}
