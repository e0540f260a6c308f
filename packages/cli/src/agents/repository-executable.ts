import { accessSync, constants } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/**
 * The agent CLI a project installed for itself: `node_modules/.bin/<name>` in the directory or any above it
 * (nearest first), as `npm exec` would find it. Only for a CLI named bare (a path is taken as given), and only
 * for host sandboxes: a container does not see the host's node_modules.
 */
export function repositoryExecutable(name: string, from: string): string | undefined {
  if (name.includes("/") || isAbsolute(name)) return undefined;
  let directory = resolve(from);
  for (;;) {
    const candidate = join(directory, "node_modules", ".bin", name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here: one level up
    }
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}
