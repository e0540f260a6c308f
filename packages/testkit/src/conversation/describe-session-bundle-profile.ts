import { assertSpecificationVersion } from "@outpost/core";
import { vitestRunner } from "../shared/suite-runner.js";
import { checkHostileCaptures, type HostileLayout } from "./bundle-hostile-capture.js";
import { bundleHostileIds } from "./bundle-hostile-ids.js";
import { hardLinkLayouts, specialFileLayouts, symbolicLinkLayouts } from "./bundle-link-layouts.js";
import { limitLayouts } from "./bundle-limits.js";
import { bundleOddNames } from "./bundle-odd-names.js";
import { bundleRestoreThroughLinks } from "./bundle-restore-links.js";
import { bundleRoundTrip } from "./bundle-round-trip.js";
import { withBundleCase, type DescribeSessionBundleProfileOptions } from "./bundle-suite-context.js";

export type { DescribeSessionBundleProfileOptions };

// Hostile captures start node in the sandbox several times each: generous for a loaded machine.
const TIMEOUT_MS = 240_000;

/**
 * Conformance for a directory-per-session agent: its `SessionBundleProfile` and the store built from it,
 * on a recorded session and the provider the author passes. A recorded session survives capture → locate →
 * restore into another workspace and home with no stale path; links (symbolic and hard, in the session and
 * on the way to it, at capture and at restore), special files, odd names, traversal ids and the size and
 * count limits are refused with OutpostErrors or neutralised, and nothing from outside a session reaches the host.
 */
export function describeSessionBundleProfile(options: DescribeSessionBundleProfileOptions): void {
  const runner = options.runner ?? vitestRunner;
  const { profile, store } = options;
  assertSpecificationVersion(profile, "session bundle profile");
  assertSpecificationVersion(store, "conversation store");
  if (store.format !== profile.format)
    throw new Error(`the store's format ${JSON.stringify(store.format)} is not the profile's ${JSON.stringify(profile.format)}`);
  const hostile = (layouts: readonly HostileLayout[]) => () =>
    withBundleCase(options, (scene) => checkHostileCaptures(options, scene, layouts));
  const limits = limitLayouts(options);
  runner.describe(`session bundle profile conformance: ${profile.format}`, () => {
    runner.it(
      "capture → locate → restore into another workspace and home: the captured files, no stale path",
      () => bundleRoundTrip(options),
      TIMEOUT_MS,
    );
    runner.it(
      "symbolic links in and on the way to the session are refused or never followed",
      hostile(symbolicLinkLayouts(profile)),
      TIMEOUT_MS,
    );
    runner.it("hard links to files outside the session are refused or never followed", hostile(hardLinkLayouts(profile)), TIMEOUT_MS);
    runner.it("special files (fifos) are refused without blocking", hostile(specialFileLayouts(profile)), TIMEOUT_MS);
    runner.it("odd file names are restored as the same names, or refused", () => bundleOddNames(options), TIMEOUT_MS);
    runner.it(
      "traversal and malformed ids are refused by capture, locate, destination and restore",
      () => bundleHostileIds(options),
      TIMEOUT_MS,
    );
    const title = "files past the size and count limits are refused with code limit";
    if (limits.length === 0) runner.it.skip(`${title} (the profile captures no new file anywhere)`);
    else runner.it(title, hostile(limits), TIMEOUT_MS);
    runner.it("restore never writes through a symbolic link in the target home", () => bundleRestoreThroughLinks(options), TIMEOUT_MS);
  });
}
