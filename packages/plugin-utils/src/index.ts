export { scanHostTree } from "./host-tree.js";
export type { HostTree, HostTreeEntry } from "./host-tree.js";
export { assertNoLinkLeavesDestination } from "./destination-links.js";
export { assertLinkStaysInside } from "./link-target.js";
export { TailBuffer } from "./tail-buffer.js";
export { resolveCommandDirectory, resolveTransferPath } from "./sandbox-path.js";
