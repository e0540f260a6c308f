import type { AgentEvent } from "./agent-event.js";

/**
 * The JSON object on one output line of an agent CLI, or undefined (not JSON, truncated, not an object).
 * Never throws.
 */
export function parseJsonLine(input: string): Record<string, unknown> | undefined {
  // A byte-order mark before the first line must not cost the conversation id it carries.
  const line = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  // Event lines are objects: banners, warnings and stack traces are rejected without a parse attempt.
  let start = 0;
  while (start < line.length && isJsonSpace(line.charCodeAt(start))) start++;
  if (line.charCodeAt(start) !== 123 /* { */) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const TYPE_PREFIX = '{"type":"';

/**
 * The `type` of a line written as `{"type":"…",…` (how the CLIs print events), read without parsing the
 * line; undefined for any other shape, which then takes the full parse path.
 */
export function leadingJsonType(line: string): string | undefined {
  if (!line.startsWith(TYPE_PREFIX)) return undefined;
  const end = line.indexOf('"', TYPE_PREFIX.length);
  if (end < 0) return undefined;
  const type = line.slice(TYPE_PREFIX.length, end);
  return type.includes("\\") ? undefined : type;
}

/**
 * A `raw` event whose `value` is parsed on first access (and cached): most raw lines are never looked at,
 * so a decoder does not pay a full JSON parse for them. `value` is undefined when the line is not an object.
 */
export function lazyRawEvent(line: string): AgentEvent {
  let parsed: { value: unknown } | undefined;
  // A getter in the literal keeps the object's fast shape (defineProperty would not).
  return {
    type: "raw",
    line,
    get value() {
      parsed ??= { value: parseJsonLine(line) };
      return parsed.value;
    },
  };
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is a plain object, else an empty one, so field chains never throw. */
export function jsonObject(value: unknown): Record<string, unknown> {
  return isJsonObject(value) ? value : {};
}

export function jsonString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** `value` when it is a finite number (JSON has no NaN or Infinity, but a hostile field may be huge). */
export function jsonNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** `value[key]` when it is a plain object. */
export function jsonObjectField(value: Record<string, unknown> | undefined, key: string): Record<string, unknown> | undefined {
  const field = value?.[key];
  return isJsonObject(field) ? field : undefined;
}

/** `value[key]` when it is a string. */
export function jsonStringField(value: Record<string, unknown> | undefined, key: string): string | undefined {
  return jsonString(value?.[key]);
}

/** `value[key]` when it is a finite number. */
export function jsonNumberField(value: Record<string, unknown> | undefined, key: string): number | undefined {
  return jsonNumber(value?.[key]);
}

function isJsonSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}
