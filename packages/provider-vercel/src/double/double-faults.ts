/** A fault the double answers instead of the real behaviour, for the next `times` matching requests. */
export interface VercelFault {
  /** HTTP status to answer (401, 403, 429, 500, 503…). */
  readonly status: number;
  /** How many matching requests get it (default 1). */
  readonly times?: number;
  /** `Retry-After` seconds (429). */
  readonly retryAfter?: number;
  /** Only requests whose `METHOD path` matches (e.g. /^POST \/v[23]\/sandboxes$/); default every request. */
  readonly match?: RegExp;
  /** The error code in the body (default from the status). */
  readonly code?: string;
}

interface ArmedFault {
  readonly fault: VercelFault;
  left: number;
}

const CODES: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  402: "payment_required",
  403: "forbidden",
  404: "not_found",
  429: "rate_limited",
  500: "internal_server_error",
  502: "bad_gateway",
  503: "service_unavailable",
};

/** Faults armed by tests; each request consumes the first one that matches it. */
export class FaultPlan {
  private armed: ArmedFault[] = [];

  add(fault: VercelFault): void {
    this.armed.push({ fault, left: fault.times ?? 1 });
  }

  clear(): void {
    this.armed = [];
  }

  /** The fault for this request, if one is armed for it (and counts it). */
  take(method: string, path: string): { status: number; code: string; retryAfter?: number } | undefined {
    const line = `${method} ${path}`;
    const found = this.armed.find((entry) => entry.left > 0 && (entry.fault.match === undefined || entry.fault.match.test(line)));
    if (found === undefined) return undefined;
    found.left--;
    this.armed = this.armed.filter((entry) => entry.left > 0);
    const { status, retryAfter, code } = found.fault;
    return { status, code: code ?? CODES[status] ?? "error", ...(retryAfter === undefined ? {} : { retryAfter }) };
  }
}
