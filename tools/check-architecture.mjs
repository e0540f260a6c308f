#!/usr/bin/env node
// CI entry point: fails with one line per violation of the dependency rule.
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";
import { checkArchitecture } from "./architecture.mjs";

const root = resolve(process.argv[2] ?? resolve(dirname(fileURLToPath(import.meta.url)), ".."));
const violations = checkArchitecture(root);
if (violations.length > 0) {
  console.error(`Dependency rule violated (${violations.length}); see docs/architecture.md:`);
  for (const line of violations) console.error(`  ${line}`);
  process.exit(1);
}
console.log("architecture: dependency rule holds for every package");
