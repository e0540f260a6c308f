/** What an SDK error looks like, as far as the mapping needs to know. */
export interface S3Failure {
  readonly name?: string;
  readonly code?: string;
  readonly message?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
  readonly Code?: string;
}

export function statusOf(error: unknown): number | undefined {
  return (error as S3Failure | undefined)?.$metadata?.httpStatusCode;
}

export function nameOf(error: unknown): string {
  const failure = error as S3Failure | undefined;
  return failure?.Code ?? failure?.name ?? failure?.code ?? "Error";
}

/** The key is missing. A missing bucket (also a 404) is not: it is a configuration problem, never "absent". */
export function isNotFound(error: unknown): boolean {
  const name = nameOf(error);
  if (name === "NoSuchBucket") return false;
  return statusOf(error) === 404 || name === "NoSuchKey" || name === "NotFound";
}

export function isPreconditionFailed(error: unknown): boolean {
  const status = statusOf(error);
  const name = nameOf(error);
  // 409 ConditionalRequestConflict: another conditional write on the same key was in flight.
  return status === 412 || status === 409 || name === "PreconditionFailed" || name === "ConditionalRequestConflict";
}
