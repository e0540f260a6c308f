import type { SessionBundle, SessionBundleEntry } from "./session-bundle.js";

/**
 * Structural checks of an untrusted bundle, shared by the host and the sandbox. Also bundled into the
 * sandbox programs (`dist/sandbox-programs.cjs`). Returns a problem description, or undefined when the bundle is sound.
 */
export function bundleProblem(
  bundle: unknown,
  expected: {
    format: string;
    id: string;
    maxBytes: number;
    maxFiles: number;
    include: { source: string; flags: string };
    exclude?: { source: string; flags: string };
  },
): string | undefined {
  if (!bundle || typeof bundle !== "object") return "it is not a JSON object";
  const value = bundle as Partial<SessionBundle>;
  if (value.outpost !== "session-bundle" || value.version !== 1) return "it is not an Outpost session bundle (version 1)";
  if (value.format !== expected.format) return `it holds format ${JSON.stringify(value.format)}, not ${expected.format}`;
  if (value.id !== expected.id) return `it holds conversation ${JSON.stringify(value.id)}, not ${expected.id}`;
  if (!value.origin || typeof value.origin.workspace !== "string" || typeof value.origin.home !== "string") return "its origin is missing";
  if (value.bucket !== null && typeof value.bucket !== "string") return "its bucket is not a string";
  if (!Array.isArray(value.files)) return "its file list is missing";
  if (value.files.length > expected.maxFiles) return `it has ${value.files.length} files, over the limit of ${expected.maxFiles}`;
  const include = new RegExp(expected.include.source, expected.include.flags);
  const exclude = expected.exclude ? new RegExp(expected.exclude.source, expected.exclude.flags) : undefined;
  const seen = new Set<string>();
  let bytes = 0;
  for (const file of value.files as Partial<SessionBundleEntry>[]) {
    if (!file || typeof file.path !== "string" || typeof file.data !== "string" || typeof file.mode !== "number")
      return "a file entry is malformed";
    if (file.encoding !== "utf8" && file.encoding !== "base64") return `${file.path} has an unknown encoding`;
    const path = file.path;
    // A backslash is an ordinary character in a POSIX name: whatever capture reads, restore must accept.
    if (path.startsWith("/") || path.includes("\0")) return `${JSON.stringify(path)} is absolute or contains NUL`;
    const segments = path.split("/");
    for (const segment of segments) {
      if (segment === "" || segment === "." || segment === "..") return `${JSON.stringify(path)} has an empty, "." or ".." segment`;
      if (segment === ".git") return `${JSON.stringify(path)} is a .git entry`;
    }
    for (let depth = 1; depth <= segments.length; depth += 1) {
      const prefix = segments.slice(0, depth).join("/");
      if (!include.test(prefix) || (exclude && exclude.test(prefix))) return `${JSON.stringify(path)} is not a file this format captures`;
    }
    if (seen.has(path)) return `${JSON.stringify(path)} appears twice`;
    seen.add(path);
    bytes += file.encoding === "utf8" ? file.data.length : Math.floor((file.data.length * 3) / 4);
    if (bytes > expected.maxBytes) return `it is larger than the limit of ${expected.maxBytes} bytes`;
  }
  return undefined;
}
