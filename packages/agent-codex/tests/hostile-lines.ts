/** Lines no decoder may choke on: truncated, not JSON, huge, deeply nested, unknown types, wrong field types. */
export function hostileLines(known: readonly string[]): string[] {
  const truncated = known.filter((line) => line.length > 10).map((line, index) => line.slice(0, Math.max(1, Math.floor(line.length * ((index % 5) + 1) / 7))));
  return [
    ...truncated,
    "not json at all",
    "{",
    "}{",
    '{"type":',
    "[1,2,3]",
    "42",
    "null",
    '"a string"',
    "\u0000\u0001\u0002binary\uFFFD\uD800",
    " \t ",
    `{"type":"from_a_future_version","payload":{"x":1}}`,
    `{"type":"${"t".repeat(10_000)}"}`,
    `{"type":"unknown","text":"${"x".repeat(5 * 1024 * 1024)}"}`,
    "x".repeat(2 * 1024 * 1024),
    "[".repeat(200_000),
    `${"[".repeat(5_000)}${"]".repeat(5_000)}`,
    '{"type":"raw","line":"{\\"type\\":\\"result\\"}"}',
    '{"__proto__":{"polluted":true},"type":"mystery"}',
  ];
}

/** Lines of a known type whose fields have the wrong types: decoders must not throw on them. */
export const MALFORMED_KNOWN_TYPES: readonly string[] = [
  // claude
  '{"type":"system","subtype":"init","session_id":5}',
  '{"type":"assistant","message":5}',
  '{"type":"assistant","message":{"content":[null,1,"x",{"type":"tool_use"}]}}',
  '{"type":"user","message":{"content":[{"type":"tool_result","content":[null,{"text":3}]}]}}',
  '{"type":"result","usage":"lots","is_error":"yes","result":7}',
  // codex
  '{"type":"thread.started","thread_id":null}',
  '{"type":"item.started","item":"x"}',
  '{"type":"item.completed","item":{"type":"command_execution","id":7,"exit_code":"3"}}',
  '{"type":"item.completed","item":{"type":"mcp_tool_call","server":1,"result":{"a":[1]}}}',
  '{"type":"turn.completed","usage":[1,2]}',
  '{"type":"turn.failed","error":"boom"}',
  // gemini
  '{"type":"init"}',
  '{"type":"message","role":"assistant","content":{"text":"x"}}',
  '{"type":"tool_use","tool_name":["x"],"parameters":null}',
  '{"type":"tool_result","status":5,"error":"x"}',
  '{"type":"result","status":null,"stats":"none","error":[]}',
  '{"type":"error"}',
];

/** A small seeded PRNG so chunk boundaries are random but reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
