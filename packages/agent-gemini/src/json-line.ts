/** The JSON object on one output line, or undefined (not JSON, truncated, not an object). Never throws. */
export function parseJsonLine(input: string): Record<string, unknown> | undefined {
  // A byte-order mark before the first line must not cost the conversation id it carries.
  const line = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  // Stream-json lines are objects: anything else (banners, warnings) is rejected before parsing.
  let start = 0;
  while (start < line.length && (line.charCodeAt(start) === 32 || line.charCodeAt(start) === 9)) start++;
  if (line.charCodeAt(start) !== 123 /* { */) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
