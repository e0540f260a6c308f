import { posix } from "node:path";
import { OutpostError } from "@outpost/core";

/** Refuses a link (at `path` in the transferred tree) whose target is absolute or leaves the tree. */
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
