#!/usr/bin/env node
// Kept tiny: `outpost --help` must start fast, so everything heavy is imported only by the command that needs it.
// The build bundles this file and what it imports statically into one CommonJS file (dist/bin.cjs, see
// tools/bundle-commonjs-start.mjs): a CommonJS main starts ~20 ms sooner than an ES module graph.
import { main } from "./main.js";

// A closed pipe (`outpost --help | head -c 10`) is not a crash: what is left to write is dropped.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "EIO") throw error;
  });
}

// No top-level await: CommonJS has none. A rejection still ends the process with its stack, as before.
void main(process.argv).then((code) => {
  process.exitCode = code;
});
