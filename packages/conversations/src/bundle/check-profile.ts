import type { SessionBundleProfile } from "@outpost/core";
import { OutpostError, assertSpecificationVersion, normalizeRelativePath } from "@outpost/core";

/** Refuses a profile that cannot work, before any sandbox is touched. */
export function checkProfile(profile: SessionBundleProfile): void {
  assertSpecificationVersion(profile, "session bundle profile");
  const format = profile.format;
  const fail = (problem: string) =>
    new OutpostError("configuration", `The session-bundle profile ${JSON.stringify(format)} is invalid: ${problem}. Fix the profile.`, {
      details: { format },
    });
  const formatProblem = formatNameProblem(format);
  if (formatProblem) throw fail(`format ${formatProblem}; use a single folder name such as "copilot"`);
  if (!profile.root || typeof profile.root.directory !== "string") throw fail("root.directory is missing");
  const relative = (path: unknown) => {
    try {
      return normalizeRelativePath(path as string);
    } catch {
      return undefined;
    }
  };
  if (relative(profile.root.directory) === undefined) throw fail("root.directory must be relative to the agent home");
  if (!relative(profile.sessions)) throw fail("sessions must name a folder under the CLI home");
  for (const [name, pattern] of [
    ["include", profile.include],
    ["exclude", profile.exclude],
  ] as const) {
    if (pattern === undefined && name === "exclude") continue;
    if (!(pattern instanceof RegExp)) throw fail(`${name} must be a RegExp`);
    // A g or y RegExp keeps lastIndex between tests and would skip every other file.
    if (pattern.global || pattern.sticky) throw fail(`${name} has the g or y flag, which makes test() stateful`);
    // A path is one name, never lines: with m, ^ and $ would match at a line break inside a file name.
    if (pattern.multiline)
      throw fail(`${name} has the m flag: a path is matched whole, so ^ and $ must not match at a line break in a name`);
  }
  if (!Array.isArray(profile.required) || profile.required.length === 0) throw fail("required must list at least one file");
  for (const path of [...profile.required, ...(profile.relocated ?? [])]) {
    if (relative(path) !== path || path === "") throw fail(`${JSON.stringify(path)} is not a normalized bundle-relative path`);
  }
  if (profile.buckets && typeof profile.bucket !== "function") throw fail("buckets is true but no bucket hook is given");
  if ((profile.indexFile === undefined) !== (profile.index === undefined))
    throw fail("indexFile and index are given together or not at all");
  if (profile.indexFile !== undefined && !relative(profile.indexFile)) throw fail("indexFile must be relative to the CLI home");
}

/**
 * Why a format name cannot name the host folder `.outpost/conversations/<format>` and a transport key
 * segment, or undefined: any single safe path segment is accepted.
 */
export function formatNameProblem(format: unknown): string | undefined {
  if (typeof format !== "string" || format === "") return "is empty or not a string";
  if (Buffer.byteLength(format) > 200) return "is longer than 200 bytes";
  if (format === "." || format === ".." || format === ".git") return `is ${JSON.stringify(format)}, which is not a folder name of its own`;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[/\\\u0000-\u001f\u007f]/.test(format)) return "contains a slash, a backslash or a control character";
  return undefined;
}
