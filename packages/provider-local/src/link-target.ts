import { posix } from "node:path";
import { OutpostError } from "@outpost/core";

/**
 * Refuses a link whose target is absolute or leaves the transferred tree. `path` is the link's place in
 * the tree, relative to its top, with `/` separators.
 */
export function assertLinkStaysInside(path: string, target: string): void {
  const landing = posix.normalize(posix.join(posix.dirname(path), target));
  if (posix.isAbsolute(target) || landing === ".." || landing.startsWith("../")) {
    throw new OutpostError(
      "workspace",
      `Refused the symbolic link ${JSON.stringify(path)} -> ${JSON.stringify(target)}: it is ${posix.isAbsolute(target) ? "absolute" : "leaving the transferred tree"}. Replace it with a relative link inside the tree, or leave it out.`,
      {
        details: { path, target },
      },
    );
  }
}
