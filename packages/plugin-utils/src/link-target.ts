import { posix } from "node:path";
import { OutpostError } from "@outpost/core";

/**
 * Rule: a symbolic link inside a transferred tree is kept only when its target is relative and lands
 * inside the tree. `path` is the link's place in the tree (relative to its top, `/`-separated); an
 * absolute target, or one that climbs out, is refused with a `workspace` error.
 */
export function assertLinkStaysInside(path: string, target: string): void {
  const landing = posix.normalize(posix.join(posix.dirname(path), target));
  if (posix.isAbsolute(target) || landing === ".." || landing.startsWith("../")) {
    const problem = posix.isAbsolute(target) ? "absolute" : "leaving the transferred tree";
    throw new OutpostError(
      "workspace",
      `Refused the symbolic link ${JSON.stringify(path)} -> ${JSON.stringify(target)}: it is ${problem}. Replace it with a relative link inside the tree, or leave it out.`,
      { details: { path, target } },
    );
  }
}
