/**
 * The base of agent images users build anywhere: the official Node image (Debian bookworm, Node 20, npm, a
 * `node` user). Pin it for reproducible builds with `--base node:20-bookworm-slim@sha256:<PUBLIC_BASE_DIGEST>`;
 * the default is the tag, so a local image tagged like it (a mirror, or a stand-in in tests) is used as is.
 */
export const PUBLIC_BASE_IMAGE = "node:20-bookworm-slim";

/** The digest of `node:20-bookworm-slim` (linux/amd64 index) this recipe was written against. */
export const PUBLIC_BASE_DIGEST = "sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0";
