#!/usr/bin/env node
// `npm run release:dry`: previews the independent release (`nx release --dry-run --skip-publish --verbose`) and
// fails when it is not clean: every released package needs exactly one changelog entry of its own (no entries of
// other packages, no mangled lines, no internal notes, no empty sections, no devDependency bumps) and its tag.
// The changelog renderer (tools/release/changelog-renderer.cjs) is what makes it clean; this proves it did.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findReleaseDefects } from "./release/release-defects.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const folders = readdirSync(join(root, "packages")).filter((folder) => existsSync(join(root, "packages", folder, "package.json")));

function runtimeDependencies(folder) {
  const manifest = JSON.parse(readFileSync(join(root, "packages", folder, "package.json"), "utf8"));
  return new Set(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }));
}

const run = spawnSync("npx", ["nx", "release", "--dry-run", "--skip-publish", "--verbose"], {
  cwd: root,
  encoding: "utf8",
  maxBuffer: 256 * 1024 * 1024,
  // CI=true turns colours on in nx's output even into a pipe; the checks read plain text.
  env: { ...process.env, NX_DAEMON: "false", NX_TUI: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
});
// eslint-disable-next-line no-control-regex -- the escape sequences of colours, whatever asked for them
const output = `${run.stdout ?? ""}${run.stderr ?? ""}`.replace(/\u001b\[[0-9;]*m/g, "");
process.stdout.write(output);
const defects = run.status === 0 ? findReleaseDefects(output, { folders, runtimeDependencies }) : [];
if (run.status !== 0)
  defects.push(`nx release --dry-run exited with ${run.status ?? run.signal}${run.error ? ` (${run.error.message})` : ""}`);
if (defects.length > 0) {
  console.error(`\nrelease:dry: the release is not clean (${defects.length}); see tools/release/changelog-rules.cjs:`);
  for (const defect of defects) console.error(`  ${defect}`);
  process.exit(1);
}
console.log("\nrelease:dry: one clean changelog entry and one tag per released package");
