import { DoubleRefusal } from "./double-refusal.js";

/** A fault a double answers with instead of serving the next matching requests. */
export interface DoubleFault {
  /** HTTP status to answer with (401, 429, 500, 503…). */
  readonly status: number;
  /** Seconds for the Retry-After header (429). */
  readonly retryAfter?: number;
  /** Only requests whose `METHOD path` contains this text or matches this expression; every request when omitted. */
  readonly match?: string | RegExp;
  /** How many matching requests fail (default 1). */
  readonly times?: number;
  /** The error code in the body (default from the status, in the API's spelling). */
  readonly code?: string;
}

/** Faults armed by a test, each request consuming the first one that matches it. */
export class FaultPlan {
  private armed: { fault: DoubleFault; left: number }[] = [];

  /** `codes`: the API's error code for each status. */
  constructor(private readonly codes: Readonly<Record<number, string>>) {}

  add(fault: DoubleFault): void {
    this.armed.push({ fault, left: fault.times ?? 1 });
  }

  clear(): void {
    this.armed = [];
  }

  /** The refusal for this request (`METHOD path`), if a fault is armed for it (and counts it). */
  take(route: string): DoubleRefusal | undefined {
    const found = this.armed.find(({ fault, left }) => left > 0 && matches(fault.match, route));
    if (found === undefined) return undefined;
    found.left--;
    this.armed = this.armed.filter((entry) => entry.left > 0);
    const { status, retryAfter, code } = found.fault;
    const headers: Record<string, string> = retryAfter === undefined ? {} : { "retry-after": String(retryAfter) };
    return new DoubleRefusal(status, code ?? this.codes[status] ?? "error", `Injected fault: HTTP ${status}`, headers);
  }
}

function matches(match: string | RegExp | undefined, route: string): boolean {
  if (match === undefined) return true;
  return typeof match === "string" ? route.includes(match) : match.test(route);
}
