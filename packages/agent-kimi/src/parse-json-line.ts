/** A JSON object parsed from one output line, or undefined when the line is not one. Never throws. */
export function parseJsonLine(line: string): Record<string, unknown> | undefined {
  const text = line.trim();
  // Cheap pre-check: most non-JSON noise (banners, stack traces) is rejected without a parse attempt.
  if (text.length < 2 || text.charCodeAt(0) !== 123 /* { */) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
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
