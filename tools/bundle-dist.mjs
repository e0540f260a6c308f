#!/usr/bin/env node
// Runs after `tsc` in each package's build: bundles the package's own modules behind each entry of its
// exports map (and dist/bin.js) into one file per entry, with code shared between entries in chunks.
// Why: a fresh process importing the engine loaded ~240 files, ~1 ms each to resolve, read and compile,
// most of what `outpost run` paid before the work began. Dependencies (other @outpost packages included)
// stay imports, so each package is still one module instance shared by its plugins. The .d.ts files tsc
// wrote stay as they are; the per-file .js it wrote are removed, so nothing can come to depend on them.
// Usage (in a package folder): node ../../tools/bundle-dist.mjs
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { build } from "esbuild";

const root = process.cwd();
const dist = resolve(root, "dist");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** The dist files a consumer can reach: exports entries (their `import` target) and the CLI's bin module. */
function entryPoints() {
  const targets = Object.entries(manifest.exports ?? {})
    .filter(([path]) => path !== "./package.json")
    .map(([, target]) => (typeof target === "string" ? target : target.import))
    .filter((target) => typeof target === "string" && target.startsWith("./dist/") && target.endsWith(".js"));
  if (existsSync(join(dist, "bin.js"))) targets.push("./dist/bin.js");
  return [...new Set(targets)].map((target) => resolve(root, target));
}

const entries = entryPoints();
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

// tsc's per-file output that is not part of the bundle goes; declarations stay.
const kept = new Set(Object.keys(result.metafile.outputs).map((output) => resolve(output)));
function prune(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) prune(path);
    else if ((entry.name.endsWith(".js") || entry.name.endsWith(".js.map")) && !kept.has(path)) rmSync(path);
  }
}
prune(dist);
