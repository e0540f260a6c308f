#!/usr/bin/env node
// Builds the code that runs inside sandboxes as one self-contained file, dist/sandbox-programs.cjs: an IIFE
// whose value is the global `outpostSandbox`, with every helper it needs and only Node built-ins imported.
// Why a file of its own: the host sends it as `node -e` text, and code serialized from the host's bundle is
// whatever that bundler made of it (esbuild turned `require` into a `__require` no sandbox has). This file
// is the same text the tests run, from sources or built, and no later bundler touches it.
// Usage (in packages/conversations): node ../../tools/build-sandbox-programs.mjs
import { statSync } from "node:fs";
import { builtinModules } from "node:module";
import { resolve } from "node:path";
import { build } from "esbuild";

const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
// One argument of `node -e` may not exceed 128 KiB on Linux (MAX_ARG_STRLEN); leave room for the call.
const MAX_BYTES = 120 * 1024;

const root = process.cwd();
const outfile = resolve(root, "dist/sandbox-programs.cjs");

await build({
  entryPoints: [resolve(root, "src/sandbox/program-entry.ts")],
  outfile,
  bundle: true,
  format: "iife",
  globalName: "outpostSandbox",
  platform: "node",
  // The sandbox's node, not the host's: the oldest the scripts promise to run on.
  target: "node18",
  // Smaller text per command; names stay, so a stack from the sandbox still reads.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
  plugins: [
    {
      name: "sandbox-imports",
      setup(builder) {
        builder.onResolve({ filter: /^[^./]/ }, (args) => {
          if (BUILTINS.has(args.path)) return { path: args.path, external: true };
          // A type-only import is erased before this; a value import of a package would not exist in the sandbox.
          return { errors: [{ text: `sandbox programs may import only Node built-ins and relative modules, not "${args.path}"` }] };
        });
      },
    },
  ],
});

const size = statSync(outfile).size;
if (size > MAX_BYTES)
  throw new Error(`build-sandbox-programs: ${outfile} is ${size} bytes, over ${MAX_BYTES}: it must fit one node -e argument`);
