import { OutpostError } from "../errors/outpost-error.js";

/**
 * Validates a transport key: relative, `/`-separated, no empty, `.` or `..` segments, no backslash or NUL.
 * Returns the key unchanged; throws code `configuration` otherwise.
 */
export function assertTransportKey(key: string): string {
  const problem = transportKeyProblem(key);
  if (problem) {
    throw new OutpostError(
      "configuration",
      `Invalid transport key ${JSON.stringify(key)}: ${problem}. Use a relative key such as "conversations/claude/<id>.json".`,
      { details: { key } },
    );
  }
  return key;
}

/** Validates a listing prefix: like a key, but may be empty or end with `/`. */
export function assertTransportPrefix(prefix: string): string {
  if (prefix === "") return prefix;
  assertTransportKey(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
  return prefix;
}

function transportKeyProblem(key: string): string | undefined {
  if (typeof key !== "string" || key.length === 0) return "it is empty";
  if (key.length > 1024) return "it is longer than 1024 characters";
  if (key.startsWith("/")) return "it is absolute";
  if (key.includes("\\")) return "it contains a backslash";
  if (key.includes("\0")) return "it contains a NUL byte";
  for (const segment of key.split("/")) {
    if (segment === "") return "it has an empty segment";
    if (segment === "." || segment === "..") return `it has a "${segment}" segment`;
  }
  return undefined;
}
