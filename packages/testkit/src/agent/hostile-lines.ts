/**
 * Lines no decoder may map to a known event: each must come back as exactly one `raw` carrying the line.
 * Truncated copies of the recorded lines come first, then fixed shapes; none is blank or contains a line break.
 */
export function hostileLines(recorded: readonly string[], random: () => number): string[] {
  const lines: string[] = [];
  for (const line of recorded) {
    if (line.length < 3) continue;
    // A strict prefix of a one-line JSON object is never a whole object.
    const prefix = line.slice(0, 1 + Math.floor(random() * (line.length - 2)));
    if (prefix.trim().length > 0) lines.push(prefix);
  }
  lines.push(...FIXED_HOSTILE_LINES);
  return lines;
}

/** Hostile lines that do not depend on the recorded stream. */
export const FIXED_HOSTILE_LINES: readonly string[] = [
  "not json at all",
  "Error: something went wrong\u0000 with a NUL",
  "{",
  "{not json",
  "}{",
  '{"type":',
  '{"type":"result"',
  "[1,2,3]",
  "42",
  "null",
  '"a string"',
  "\u0000\u0001\u0002binary\uFFFD\uD800",
  // Unknown types and shapes, valid JSON.
  '{"type":"from_a_future_version","payload":{"x":1}}',
  '{"type":42}',
  '{"no_type_at_all":true}',
  '{"type":"raw","line":"{\\"type\\":\\"result\\"}"}',
  '{"__proto__":{"polluted":true},"type":"mystery"}',
  `{"type":"${"t".repeat(10_000)}"}`,
  '{"type":"x","data":"' + "\u00e9\u{1F600}".repeat(1_000) + '"}',
  // Deep nesting: valid, unterminated, and an array bomb.
  '{"a":'.repeat(5_000) + "1" + "}".repeat(5_000),
  '{"a":'.repeat(100_000),
  "[".repeat(200_000),
  // Huge lines (2 and 4 MB): garbage and a well-formed object of an unknown type.
  "x".repeat(2 * 1024 * 1024),
  '{"type":"huge.unknown","data":{"blob":"' + "y".repeat(4 * 1024 * 1024) + '"}}',
];
