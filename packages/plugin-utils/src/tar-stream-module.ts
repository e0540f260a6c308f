import { createRequire } from "node:module";
import type * as TarStream from "tar-stream";

let loaded: typeof TarStream | undefined;

/**
 * tar-stream, loaded on first use: with its streams library it is some 30 ms of CommonJS loading, which a
 * process that never packs or unpacks (a local dispatch, `outpost --help`) should not pay.
 */
export function tarStream(): typeof TarStream {
  loaded ??= createRequire(import.meta.url)("tar-stream") as typeof TarStream;
  return loaded;
}
