/** Hostile output lines for decoder robustness tests, generated from a seed so failures reproduce. */

/** Deterministic PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Lines no decoder may map to a known event: each must come back as exactly one `raw`. */
export function hostileLines(valid: readonly string[], random: () => number): string[] {
  const lines: string[] = [];
  for (const line of valid) {
    // Truncated: a strict, non-blank prefix of a real line is never valid JSON.
    const cut = 1 + Math.floor(random() * (line.length - 2));
    if (line.slice(0, cut).trim().length > 0) lines.push(line.slice(0, cut));
  }
  lines.push(
    "{not json",
    "}{",
    "[1,2,3]",
    "null",
    "42",
    '"just a string"',
    "Error: something went wrong\u0000 with a NUL",
    '{"type":"made.up.event","data":{"x":1}}',
    '{"type":42}',
    '{"no_type_at_all":true}',
    // Deep but valid nesting of an unknown shape.
    '{"a":'.repeat(5_000) + "1" + "}".repeat(5_000),
    '{"type":"x","data":"' + "\u00e9\u{1F600}".repeat(1_000) + '"}',
    // Huge lines: 2 MB of garbage and a 2 MB well-formed object of an unknown type (core's LineSplitter
    // re-joins a pending line on every chunk, so much larger lines make this test quadratic-slow).
    "x".repeat(2 * 1024 * 1024),
    '{"type":"huge.unknown","data":{"blob":"' + "y".repeat(2 * 1024 * 1024) + '"}}',
  );
  return lines;
}

/** Splits text into random chunks (1 byte to 64 KiB) as a pipe would deliver it. */
export function randomChunks(text: string, random: () => number): string[] {
  const chunks: string[] = [];
  let offset = 0;
  while (offset < text.length) {
    // Mostly pipe-sized chunks, some tiny ones to split lines and UTF-8 sequences at odd places.
    const size = random() < 0.05 ? 1 + Math.floor(random() * 8) : 1 + Math.floor(random() * 65_536);
    chunks.push(text.slice(offset, offset + size));
    offset += size;
  }
  return chunks;
}
