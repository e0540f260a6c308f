import { posix } from "node:path";
import type { SessionBundleProfile } from "@outpost/core";
import { capturedPlaces, inFolder } from "./bundle-paths.js";
import type { HostileLayout } from "./bundle-hostile-capture.js";
import { OUTSIDE_SECRET, cliRoot, type BundleCase } from "./bundle-suite-context.js";
import type { SandboxFileStep } from "./sandbox-files.js";

/** The last required file: present in every sound session, so replacing it is always seen by capture. */
function requiredFile(profile: SessionBundleProfile, scene: BundleCase): string {
  return posix.join(scene.session, profile.required.at(-1)!);
}

/** Sandbox path of a new entry `name` where the profile captures it (the session folder when nowhere). */
function capturedPlace(profile: SessionBundleProfile, scene: BundleCase, name: string): string {
  return posix.join(scene.session, inFolder(capturedPlaces(profile, name)[0] ?? "", name));
}

/** Symbolic links in the session folder, pointing out of it and within it, and on the way to it. */
export function symbolicLinkLayouts(profile: SessionBundleProfile): HostileLayout[] {
  const secretOf = (scene: BundleCase) => posix.join(scene.outside, "secret.txt");
  const layouts: HostileLayout[] = [
    {
      name: "a required file that is a symbolic link to a file outside the session",
      steps: (scene) => [{ kind: "symlink", path: requiredFile(profile, scene), target: secretOf(scene) }],
    },
    {
      name: "a required file that is a relative symbolic link climbing out of the session",
      steps: (scene) => {
        const file = requiredFile(profile, scene);
        return [{ kind: "symlink", path: file, target: posix.relative(posix.dirname(file), secretOf(scene)) }];
      },
    },
    {
      name: "a captured symbolic link to a file inside the session",
      steps: (scene) => {
        const path = capturedPlace(profile, scene, "kit-inside-link.txt");
        return [{ kind: "symlink", path, target: posix.relative(posix.dirname(path), requiredFile(profile, scene)) }];
      },
    },
    {
      name: "a captured symbolic link to a folder outside the session",
      steps: (scene) => [{ kind: "symlink", path: capturedPlace(profile, scene, "kit-linked-folder"), target: scene.outside }],
    },
    {
      name: "a dangling symbolic link",
      steps: (scene) => [{ kind: "symlink", path: capturedPlace(profile, scene, "kit-dangling.txt"), target: "/nonexistent/outpost-kit" }],
    },
    {
      name: "a session folder that is a symbolic link to a copy outside the CLI home",
      steps: (scene) => linkedFolder(profile, scene, scene.session),
    },
  ];
  // Every folder on the way, from the CLI home down to the session's parent (the bucket, for bucketed profiles).
  const onTheWay = (scene: BundleCase) => {
    const root = cliRoot(profile, scene.pair.source.lease);
    const below = posix.relative(root, posix.dirname(scene.session)).split("/").filter(Boolean);
    return [root, ...below.map((_, index) => posix.join(root, ...below.slice(0, index + 1)))];
  };
  for (const depth of [0, 1, 2]) {
    layouts.push({
      name: `a symbolic link on the way to the session (folder ${depth + 1} below the home)`,
      steps: (scene) => {
        const folder = onTheWay(scene)[depth];
        return folder === undefined ? [] : linkedFolder(profile, scene, folder);
      },
    });
  }
  return layouts;
}

/** Hard links: a file whose bytes are also a file outside the session. */
export function hardLinkLayouts(profile: SessionBundleProfile): HostileLayout[] {
  const secretOf = (scene: BundleCase) => posix.join(scene.outside, "secret.txt");
  return [
    {
      name: "a required file hard-linked to a file outside the session",
      steps: (scene) => [{ kind: "hardlink", path: requiredFile(profile, scene), existing: secretOf(scene) }],
    },
    {
      name: "a captured file hard-linked to a file outside the session",
      steps: (scene) => [{ kind: "hardlink", path: capturedPlace(profile, scene, "kit-hard-link.txt"), existing: secretOf(scene) }],
    },
  ];
}

/** Special files where a regular file is expected: reading one may block forever. */
export function specialFileLayouts(profile: SessionBundleProfile): HostileLayout[] {
  return [
    { name: "a required file that is a fifo", steps: (scene) => [{ kind: "fifo", path: requiredFile(profile, scene) }] },
    { name: "a captured fifo", steps: (scene) => [{ kind: "fifo", path: capturedPlace(profile, scene, "kit-fifo.txt") }] },
  ];
}

/** Moves `folder` outside the CLI home, adds the secret to its copy of the session, and links `folder` to it. */
function linkedFolder(profile: SessionBundleProfile, scene: BundleCase, folder: string): SandboxFileStep[] {
  const copy = posix.join(scene.outside, `moved-${posix.basename(folder)}`);
  const sessionInCopy = posix.join(copy, posix.relative(folder, scene.session));
  return [
    { kind: "copy", from: folder, to: copy },
    { kind: "append", path: posix.join(sessionInCopy, profile.required.at(-1)!), text: `\n${OUTSIDE_SECRET}\n` },
    { kind: "remove", path: folder },
    { kind: "symlink", path: folder, target: copy },
  ];
}
