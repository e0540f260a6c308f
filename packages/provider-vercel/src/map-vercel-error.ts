import { OutpostError } from "@outpost/core";

interface ApiFailure {
  readonly name?: string;
  readonly message?: string;
  readonly code?: string;
  readonly response?: { readonly status?: number; readonly headers?: { get(name: string): string | null } };
  readonly json?: { readonly error?: { readonly code?: string; readonly message?: string } };
  readonly cause?: { readonly code?: string };
  /** The SDK's StreamError (a command's log stream ended with an error line) names the session, not a request. */
  readonly sessionId?: string;
}

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ECONNRESET", "UND_ERR_SOCKET"]);

/**
 * Wraps an @vercel/sandbox failure (APIError, StreamError, network error) in an OutpostError that keeps
 * the cause, the HTTP status and the request id (`x-vercel-id`) — or, for a log stream that ended with an
 * error line (no HTTP status), the server's code and the session id — and says what to do. Never includes secrets.
 */
export function mapVercelError(error: unknown, action: string): OutpostError {
  if (OutpostError.isInstance(error)) return error;
  const failure = (typeof error === "object" && error !== null ? error : {}) as ApiFailure;
  const status = failure.response?.status;
  const requestId = failure.response?.headers?.get("x-vercel-id") ?? undefined;
  const serverCode = failure.json?.error?.code ?? (failure.name === "StreamError" ? failure.code : undefined);
  const reason = failure.json?.error?.message ?? (failure.message || String(error));
  const details = {
    action,
    status,
    requestId,
    serverCode,
    reason,
    ...(failure.sessionId === undefined ? {} : { sessionId: failure.sessionId }),
  };
  const cite = requestId === undefined ? "" : ` (request id ${requestId})`;
  if (status === 401 || status === 403) {
    return new OutpostError(
      "configuration",
      `Could not ${action}: Vercel refused the credentials (HTTP ${status})${cite}. Set VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID (or VERCEL_OIDC_TOKEN, ` +
        `e.g. from \`vercel env pull\`), or pass token, teamId and projectId to vercelProvider(); check that the token has access to that team and project.`,
      { cause: error, details },
    );
  }
  if (status === 429) {
    const retryAfter = Number(failure.response?.headers?.get("retry-after") ?? Number.NaN);
    const wait = Number.isFinite(retryAfter) ? ` Retry after ${retryAfter} s.` : " Wait and retry.";
    return new OutpostError(
      "quota",
      `Could not ${action}: Vercel rate-limited the request (HTTP 429)${cite}.${wait} Lower the number of concurrent sandboxes or raise the team's limits.`,
      { cause: error, details: { ...details, ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}) } },
    );
  }
  if (status === 402) {
    return new OutpostError(
      "quota",
      `Could not ${action}: the Vercel team is out of Sandbox quota (HTTP 402)${cite}. Check the team's plan and usage.`,
      { cause: error, details },
    );
  }
  if (status === 404 || status === 410 || serverCode === "sandbox_stopped" || serverCode === "sandbox_not_found") {
    return new OutpostError(
      "provider",
      `Could not ${action}: the Vercel sandbox is gone (${status === undefined ? serverCode : `HTTP ${status}`})${cite}: ` +
        `it was stopped, timed out or deleted. Acquire a new lease (raise \`timeout\` for long runs).`,
      { cause: error, details: { ...details, gone: true } },
    );
  }
  if (status === 400 || status === 422) {
    return new OutpostError(
      "configuration",
      `Could not ${action}: Vercel refused the request (HTTP ${status}: ${reason})${cite}. Fix the options.`,
      {
        cause: error,
        details,
      },
    );
  }
  if (status !== undefined && status >= 500) {
    return new OutpostError(
      "provider",
      `Could not ${action}: the Vercel Sandbox API failed (HTTP ${status})${cite} after the SDK's retries. Retry later; check https://www.vercel-status.com.`,
      { cause: error, details: { ...details, unavailable: true } },
    );
  }
  const network = failure.code ?? failure.cause?.code;
  if (network !== undefined && UNREACHABLE.has(network)) {
    return new OutpostError(
      "provider",
      `Could not ${action}: the Vercel API is not reachable (${network}). Check the network and proxy settings, then retry.`,
      { cause: error, details: { ...details, unavailable: true } },
    );
  }
  return new OutpostError(
    "provider",
    `Could not ${action}: ${reason}${cite}. Retry; if it persists, check the sandbox in the Vercel dashboard.`,
    {
      cause: error,
      details,
    },
  );
}
