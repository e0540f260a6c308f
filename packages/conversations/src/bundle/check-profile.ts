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
  if (typeof format !== "string" || !/^[a-z0-9][a-z0-9._-]*$/.test(format)) throw fail('format must be a lowercase name such as "copilot"');
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
  }
  if (!Array.isArray(profile.required) || profile.required.length === 0) throw fail("required must list at least one file");
  for (const path of [...profile.required, ...(profile.relocated ?? [])]) {
    if (relative(path) !== path || path === "") throw fail(`${JSON.stringify(path)} is not a normalized bundle-relative path`);
  }
  if (profile.buckets && typeof profile.bucket !== "function") throw fail("buckets is true but no bucket hook is given");
}
