#!/usr/bin/env node
// Run by hand (weekly): lists the releases of each agent CLI on npm newer than the newest one Outpost runs (the
// version matrix, packages/e2e/cli-matrix/versions.txt, and the pinned releases in packages/e2e/package.json).
// Each is a candidate line for versions.txt. Asks npm with `npm view <package> versions --json`, one call per
// CLI; exits 1 when there is something newer, so a scheduled job can say so. Stable releases only.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const matrix = readFileSync(join(root, "packages/e2e/cli-matrix/versions.txt"), "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"))
  .map((line) => line.split(/\s+/));
const pinned = JSON.parse(readFileSync(join(root, "packages/e2e/package.json"), "utf8")).devDependencies;

/** Newest known release of each npm package: the matrix's and the pinned one. */
const newest = new Map();
for (const [agent, npmPackage, version] of matrix) {
  for (const candidate of [version, pinned[npmPackage]].filter(Boolean)) {
    const known = newest.get(npmPackage);
    if (!known || compare(candidate, known.version) > 0) newest.set(npmPackage, { agent, version: candidate });
  }
}

let found = 0;
for (const [npmPackage, { agent, version }] of newest) {
  const view = spawnSync("npm", ["view", npmPackage, "versions", "--json"], { encoding: "utf8" });
  if (view.status !== 0) {
    console.error(`${agent}: npm view ${npmPackage} failed: ${view.stderr.trim().split("\n").pop()}`);
    process.exitCode = 2;
    continue;
  }
  const newer = [JSON.parse(view.stdout)]
    .flat()
    .filter((release) => /^\d+\.\d+\.\d+$/.test(release) && compare(release, version) > 0)
    .sort(compare);
  found += newer.length;
  console.log(
    newer.length === 0
      ? `${agent}: nothing newer than ${version}`
      : `${agent}: ${newer.length} newer than ${version}: ${newer.join(", ")} (add: ${agent.padEnd(9)} ${npmPackage.padEnd(27)} ${newer.at(-1)})`,
  );
}
if (found > 0 && process.exitCode === undefined) process.exitCode = 1;

function compare(left, right) {
  const a = left.split(".").map(Number);
  const b = right.split(".").map(Number);
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return Math.sign(a[index] - b[index]);
  return 0;
}
