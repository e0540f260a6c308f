import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, normalize } from "node:path";
import { OutpostError, isInside, resolveInside } from "@outpost/core";

/**
 * Resolves a sandbox path: absolute as given, relative against `root`. A relative path must stay inside
 * the root, also after following the links that exist on the way.
 */
export async function sandboxPath(root: string, path: string, what: string): Promise<string> {
  if (isAbsolute(path)) return normalize(path);
  const full = resolveInside(root, path, what);
  const realRoot = await realpath(root);
  let probe = full;
  for (;;) {
    const real = await realpath(probe).catch(() => undefined);
    if (real !== undefined) {
      if (!isInside(realRoot, real)) {
        throw new OutpostError("workspace", `Refused ${what} ${JSON.stringify(path)}: a symbolic link on the way leads outside the root ${JSON.stringify(root)}. Use a path that stays inside the root.`, {
          details: { path, root },
        });
      }
      return full;
    }
    if (probe === root || dirname(probe) === probe) return full;
    probe = dirname(probe);
  }
}
