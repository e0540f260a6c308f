/** A fault the double answers with instead of serving a request. */
export interface DaytonaFault {
  /** HTTP status to answer with (401, 429, 500, 503…). */
  readonly status: number;
  /** Seconds for the Retry-After header (429). */
  readonly retryAfter?: number;
  /** Only requests whose `METHOD path` contains this text; every request when omitted. */
  readonly match?: string;
  /** How many matching requests fail (default 1). */
  readonly times?: number;
}

const CODES: Record<number, string> = {
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
};

/** Faults queued by a test, consumed in order by the requests they match. */
export class FaultPlan {
  private readonly pending: { fault: DaytonaFault; left: number }[] = [];

  add(fault: DaytonaFault): void {
    this.pending.push({ fault, left: fault.times ?? 1 });
  }

  /** The fault for this request, if one is due. */
  take(request: string): { status: number; code: string; message: string; headers: Record<string, string> } | undefined {
    const index = this.pending.findIndex(({ fault }) => fault.match === undefined || request.includes(fault.match));
    if (index === -1) return undefined;
    const entry = this.pending[index]!;
    entry.left -= 1;
    if (entry.left <= 0) this.pending.splice(index, 1);
    const { status, retryAfter } = entry.fault;
    return {
      status,
      code: CODES[status] ?? "ERROR",
      message: `Injected fault: HTTP ${status}`,
      headers: retryAfter === undefined ? {} : { "retry-after": String(retryAfter) },
    };
  }
}
