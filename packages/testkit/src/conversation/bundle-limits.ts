import type { SessionBundleProfile } from "@outpost/core";
import { capturedPlaces, inFolder } from "./bundle-paths.js";
import type { HostileLayout } from "./bundle-hostile-capture.js";
import { DEFAULT_SESSION_BUNDLE_LIMITS, type DescribeSessionBundleProfileOptions } from "./bundle-suite-context.js";
import { posix } from "node:path";

/**
 * One file past the byte limit (sparse: it costs no disk) and one file past the count limit, where the
 * profile captures new files: both refused with code `limit`. Empty when the profile captures no new file.
 */
export function limitLayouts(options: DescribeSessionBundleProfileOptions): HostileLayout[] {
  const limits = { ...DEFAULT_SESSION_BUNDLE_LIMITS, ...options.limits };
  const folder = limitFolder(options.profile);
  if (folder === undefined) return [];
  return [
    {
      name: `a file of ${limits.maxBytes + 1} bytes (limit ${limits.maxBytes})`,
      refusedWith: "limit",
      steps: (scene) => [{ kind: "sparse", path: posix.join(scene.session, inFolder(folder, "kit-large.bin")), size: limits.maxBytes + 1 }],
    },
    {
      name: `${limits.maxFiles + 1} more files (limit ${limits.maxFiles})`,
      refusedWith: "limit",
      steps: (scene) => [{ kind: "many", folder: posix.join(scene.session, folder), count: limits.maxFiles + 1 }],
    },
  ];
}

/** A folder of the session where the profile captures the kit's new files, if any. */
export function limitFolder(profile: SessionBundleProfile): string | undefined {
  const large = capturedPlaces(profile, "kit-large.bin");
  return capturedPlaces(profile, "kit-many-0.txt").find((folder) => large.includes(folder));
}
