import type { StandardSchemaV1 } from "./standard-schema.js";

/** A plain validator: returns the accepted value, or throws; the thrown message becomes the issue. */
export type ResponseValidator<T> = (value: unknown) => T | Promise<T>;

/** The `response` option: the tagged block of the last turn is parsed as JSON and validated. */
export interface ResponseSpec<T> {
  /** Tag name around the value, default `response`: the last complete `<response>…</response>` block counts. */
  readonly tag?: string;
  /** Any Standard Schema validator (zod, valibot, arktype…) or a plain function. */
  readonly schema: StandardSchemaV1<unknown, T> | ResponseValidator<T>;
  /** Correction turns, resumed in the same conversation with the validation issues; default 1. */
  readonly repairs?: number;
  /** JSON Schema shown to the agent; default: derived from the validator where it can give one. */
  readonly jsonSchema?: Readonly<Record<string, unknown>>;
}

/** One problem with a response, with the JSON path it concerns when known (`items.0.name`). */
export interface ResponseIssue {
  readonly message: string;
  readonly path?: string;
}

/** One validated (or rejected) answer: attempt 0 is the brief's own turn, then one per repair. */
export interface ResponseAttempt {
  readonly attempt: number;
  readonly issues: readonly ResponseIssue[];
}

export const DEFAULT_RESPONSE_TAG = "response";
export const DEFAULT_RESPONSE_REPAIRS = 1;
