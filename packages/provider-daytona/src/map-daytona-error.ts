import { OutpostError } from "@outpost/core";

interface SdkFailure {
  readonly name?: string;
  readonly message?: string;
  readonly statusCode?: number;
  readonly code?: string;
  readonly headers?: Readonly<Record<string, unknown>> & { get?(name: string): unknown };
}

/**
 * Wraps a @daytonaio/sdk failure (DaytonaError and its subclasses, a connection error) in an OutpostError
 * that keeps the cause, the HTTP status and the request id (`x-request-id`) and says what to do. Never
 * includes the API key.
 */
export function mapDaytonaError(error: unknown, action: string): OutpostError {
  if (OutpostError.isInstance(error)) return error;
  const failure = (typeof error === "object" && error !== null ? error : {}) as SdkFailure;
  const status = failure.statusCode;
  const requestId = header(failure, "x-request-id");
  const reason = failure.message || String(error);
  const details = { action, status, requestId, serverCode: failure.code, reason };
  const cite = requestId === undefined ? "" : ` (request id ${requestId})`;
  if (status === 401 || status === 403 || failure.name === "DaytonaAuthenticationError") {
    return new OutpostError(
      "configuration",
      `Could not ${action}: Daytona refused the credentials${status === undefined ? "" : ` (HTTP ${status})`}${cite}. ` +
        `Set DAYTONA_API_KEY (and DAYTONA_API_URL for a self-hosted Daytona), or pass apiKey to daytonaProvider().`,
      { cause: error, details },
    );
  }
  if (status === 429) {
    const retryAfter = Number(header(failure, "retry-after") ?? Number.NaN);
    const wait = Number.isFinite(retryAfter) ? ` Retry after ${retryAfter} s.` : " Wait and retry.";
    return new OutpostError(
      "quota",
      `Could not ${action}: Daytona rate-limited the request (HTTP 429)${cite}.${wait} Lower the number of concurrent sandboxes or raise the organization's limits.`,
      { cause: error, details: { ...details, ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}) } },
    );
  }
  if (status === 404 || status === 410 || (status === 409 && failure.code === "SANDBOX_NOT_STARTED")) {
    return new OutpostError(
      "provider",
      `Could not ${action}: the Daytona sandbox is gone or not running (HTTP ${status})${cite}: it was stopped, archived or deleted. Acquire a new lease (raise autoStopInterval for long runs).`,
      { cause: error, details: { ...details, gone: true } },
    );
  }
  if (status === 400 || status === 422) {
    return new OutpostError(
      "configuration",
      `Could not ${action}: Daytona refused the request (HTTP ${status}: ${reason})${cite}. Fix the options.`,
      {
        cause: error,
        details,
      },
    );
  }
  if (status !== undefined && status >= 500) {
    return new OutpostError(
      "provider",
      `Could not ${action}: the Daytona API failed (HTTP ${status})${cite}. Retry later; check https://status.daytona.io.`,
      { cause: error, details: { ...details, unavailable: true } },
    );
  }
  if (failure.name === "DaytonaConnectionError" || failure.name === "DaytonaConnectionTimeoutError") {
    return new OutpostError(
      "provider",
      `Could not ${action}: the Daytona API is not reachable (${reason}). Check DAYTONA_API_URL, the network and proxy settings, then retry.`,
      {
        cause: error,
        details: { ...details, unavailable: true },
      },
    );
  }
  return new OutpostError(
    "provider",
    `Could not ${action}: ${reason}${cite}. Retry; if it persists, check the sandbox in the Daytona dashboard.`,
    {
      cause: error,
      details,
    },
  );
}

function header(failure: SdkFailure, name: string): string | undefined {
  const headers = failure.headers;
  if (headers === undefined) return undefined;
  const value = typeof headers.get === "function" ? headers.get(name) : headers[name];
  return value === undefined || value === null ? undefined : String(value);
}
