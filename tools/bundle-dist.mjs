#!/usr/bin/env node
// Runs after `tsc` in each package's build: bundles the package's own modules behind each entry of its
// exports map into one file per entry, with code shared between entries in chunks.
// Why: a fresh process importing the engine loaded ~240 files, ~1 ms each to resolve, read and compile,
// most of what `outpost run` paid before the work began. Dependencies (other @outpost packages included)
// stay imports, so each package is still one module instance shared by its plugins. The .d.ts files tsc
// wrote stay as they are; the per-file .js it wrote are removed, so nothing can come to depend on them.
// The CLI's start is also written as one CommonJS file first (see bundle-commonjs-start.mjs); the modules it
// imports lazily become entries here, so that file can import them by a stable path.
// Usage (in a package folder): node ../../tools/bundle-dist.mjs
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { bundleCommonjsStart } from "./bundle-commonjs-start.mjs";

const root = process.cwd();
const dist = resolve(root, "dist");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const startOptions = manifest.outpostBundle?.commonjsStart === undefined ? undefined : manifest.outpostBundle;

/** The dist files a consumer can reach: exports entries (their `import` target) and the CLI's bin module. */
function entryPoints() {
  const targets = Object.entries(manifest.exports ?? {})
    .filter(([path]) => path !== "./package.json")
    .map(([, target]) => (typeof target === "string" ? target : target.import))
    .filter((target) => typeof target === "string" && target.startsWith("./dist/") && target.endsWith(".js"));
  if (existsSync(join(dist, "bin.js")) && startOptions === undefined) targets.push("./dist/bin.js");
  return [...new Set(targets)].map((target) => resolve(root, target));
}

const start =
  startOptions === undefined
    ? { outputs: [], lazyModules: [] }
    : await bundleCommonjsStart({ ...startOptions, entry: resolve(root, startOptions.commonjsStart) });
const entries = [...new Set([...entryPoints(), ...start.lazyModules])];
for (const entry of entries)
  if (!existsSync(entry)) throw new Error(`bundle-dist: ${relative(root, entry)} is in the exports map but tsc did not write it`);

const result = await build({
  entryPoints: entries,
  outdir: dist,
  outbase: dist,
  entryNames: "[dir]/[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Every bare import stays an import: npm dependencies and the other @outpost packages alike.
  packages: "external",
  sourcemap: true,
  allowOverwrite: true,
  metafile: true,
  logLevel: "warning",
});

// tsc's per-file output that is not part of the bundle goes; declarations stay, unless their source is gone:
// tsc never deletes the declarations of a removed file, and they would ship with a map pointing nowhere.
const kept = new Set([...Object.keys(result.metafile.outputs).map((output) => resolve(output)), ...start.outputs]);
const DECLARATION = /\.d\.ts(\.map)?$/;
function prune(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) prune(path);
    else if ((entry.name.endsWith(".js") || entry.name.endsWith(".js.map")) && !kept.has(path)) rmSync(path);
    else if (DECLARATION.test(entry.name) && !existsSync(join(root, "src", relative(dist, path).replace(DECLARATION, ".ts")))) rmSync(path);
  }
}
prune(dist);
