/** Stable failure codes. Callers branch on `code`, never on message text. */
export type OutpostErrorCode =
  | "configuration"
  | "workspace"
  | "process"
  | "timeout"
  | "aborted"
  | "conflict"
  | "session"
  | "provider"
  | "transport"
  | "response"
  | "replay"
  | "steering"
  | "quota"
  | "prompt"
  | "limit"
  | "guard"
  | "stuck";

export const OUTPOST_ERROR_CODES: readonly OutpostErrorCode[] = Object.freeze([
  "configuration",
  "workspace",
  "process",
  "timeout",
  "aborted",
  "conflict",
  "session",
  "provider",
  "transport",
  "response",
  "replay",
  "steering",
  "quota",
  "prompt",
  "limit",
  "guard",
  "stuck",
]);

export type OutpostErrorDetails = Readonly<Record<string, unknown>>;

export interface OutpostErrorOptions {
  readonly details?: Record<string, unknown>;
  readonly cause?: unknown;
}

// A registered symbol survives duplicate copies of this package (plugins are versioned separately),
// where `instanceof` would not.
const MARKER = Symbol.for("outpost.error.OutpostError");

/** The one error class every Outpost package throws. The message says what happened and what to do. */
export class OutpostError extends Error {
  override readonly name = "OutpostError";
  readonly code: OutpostErrorCode;
  readonly details: OutpostErrorDetails;

  constructor(code: OutpostErrorCode, message: string, options: OutpostErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = deepFreeze({ ...(options.details ?? {}) });
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for any OutpostError, including one thrown by another copy of `@outpost/core`. */
  static isInstance(value: unknown): value is OutpostError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** Type guard; with `code`, also checks the code. */
export function isOutpostError(value: unknown, code?: OutpostErrorCode): value is OutpostError {
  return OutpostError.isInstance(value) && (code === undefined || value.code === code);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value as Record<string, unknown>)) deepFreeze(inner);
  }
  return value;
}
