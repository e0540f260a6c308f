import { sessionPathPattern, type SessionBundleProfile } from "@outpost/core";

/** Whether the profile captures a bundle-relative path: every prefix, folders included, passes include and not exclude. */
export function profileCaptures(profile: SessionBundleProfile, path: string): boolean {
  const segments = path.split("/");
  for (let depth = 1; depth <= segments.length; depth += 1) {
    const prefix = segments.slice(0, depth).join("/");
    // The engines' one rule (sessionPathPattern): a name with a line break matches like any other.
    if (!sessionPathPattern(profile.include).test(prefix) || (profile.exclude && sessionPathPattern(profile.exclude).test(prefix)))
      return false;
  }
  return true;
}

/**
 * Folders of a session (`""` is the session folder itself) where the profile captures a new file named
 * `name`: the folders of its required and relocated files, and relocated folders. First one first.
 */
export function capturedPlaces(profile: SessionBundleProfile, name: string): string[] {
  const folders = new Set<string>([""]);
  for (const path of [...profile.required, ...(profile.relocated ?? [])]) {
    const segments = path.split("/");
    for (let depth = 1; depth < segments.length; depth += 1) folders.add(segments.slice(0, depth).join("/"));
  }
  // A relocated entry may name a folder whose files are all relocated.
  for (const path of profile.relocated ?? []) folders.add(path);
  return [...folders].filter((folder) => profileCaptures(profile, folder === "" ? name : `${folder}/${name}`));
}

/** `folder/name`, or `name` for the session folder itself. */
export function inFolder(folder: string, name: string): string {
  return folder === "" ? name : `${folder}/${name}`;
}
