import type { AgentEvent } from "@outpost/core";

/** A JSON object parsed from one output line, or undefined when the line is not one. Never throws. */
export function parseJsonLine(line: string): Record<string, unknown> | undefined {
  // Cheap pre-check: most non-JSON noise (banners, stack traces) is rejected without a parse attempt.
  let start = 0;
  while (start < line.length && isSpace(line.charCodeAt(start))) start++;
  if (line.charCodeAt(start) !== 123 /* { */) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const TYPE_PREFIX = '{"type":"';

/**
 * The `type` of a line written as `{"type":"…",…` (how the CLIs print every event), read without parsing
 * the line; undefined for any other shape, which then takes the full parse path.
 */
export function leadingType(line: string): string | undefined {
  if (!line.startsWith(TYPE_PREFIX)) return undefined;
  const end = line.indexOf('"', TYPE_PREFIX.length);
  if (end < 0) return undefined;
  const type = line.slice(TYPE_PREFIX.length, end);
  return type.includes("\\") ? undefined : type;
}

/**
 * A `raw` event whose `value` is parsed on first access (and cached): most raw lines are never looked at,
 * so the decoder does not pay a full JSON parse for them. `value` is undefined when the line is not JSON.
 */
export function lazyRaw(line: string): AgentEvent {
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

/** `value[key]` when it is a plain object. */
export function objectField(value: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const field = value[key];
  return typeof field === "object" && field !== null && !Array.isArray(field) ? (field as Record<string, unknown>) : undefined;
}

/** `value[key]` when it is a string. */
export function stringField(value: Record<string, unknown> | undefined, key: string): string | undefined {
  const field = value?.[key];
  return typeof field === "string" ? field : undefined;
}

/** `value[key]` when it is a finite number. */
export function numberField(value: Record<string, unknown> | undefined, key: string): number | undefined {
  const field = value?.[key];
  return typeof field === "number" && Number.isFinite(field) ? field : undefined;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}
