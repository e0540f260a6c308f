// Checks the dependency rule over every package of a monorepo: imports in src/ and the package.json
// dependency fields; and in tests/ and bench/, that every workspace package imported is declared in the
// package.json and that no relative import reaches into another package's folder. Returns violations as
// readable strings; an empty list means the rule holds. Also: no line over 200 characters
// (long-lines.mjs), and a CLI whose src/ names no plugin (plugin-names.mjs).
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, relative, resolve, dirname } from "node:path";
import { ruleFor } from "./architecture-rules.mjs";
import { checkLongLines } from "./long-lines.mjs";
import { checkPluginNames, pluginWords } from "./plugin-names.mjs";
import { walkSources as walk } from "./source-files.mjs";

const SCOPE = "@outpost/";
// import … from "x", export … from "x", import("x"), require("x"), import "x"
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

export function checkArchitecture(root) {
  const packagesDir = join(root, "packages");
  const violations = [];
  const words = pluginWords(packagesDir);
  for (const folder of readdirSync(packagesDir).sort()) {
    const packageDir = join(packagesDir, folder);
    if (!existsSync(join(packageDir, "package.json"))) continue;
    const rule = ruleFor(folder);
    if (!rule) {
      violations.push(`packages/${folder}: no dependency rule covers this package; add one to tools/architecture-rules.mjs`);
      continue;
    }
    violations.push(
      ...checkManifest(folder, packageDir, rule),
      ...checkSources(folder, packageDir, rule),
      ...checkTestSources(folder, packageDir),
      ...(rule.namesNoPlugin ? checkPluginNames(folder, packageDir, words) : []),
      ...checkLongLines(folder, packageDir),
    );
  }
  return violations;
}

function allowedTarget(rule, target, self) {
  return target === self || rule.allowed === "any" || rule.allowed.includes(target);
}

function checkManifest(folder, packageDir, rule) {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const found = [];
  if (rule.noRuntimeDependencies && Object.keys(manifest.dependencies ?? {}).length > 0) {
    found.push(`packages/${folder}/package.json: must have no runtime dependencies, has ${Object.keys(manifest.dependencies).join(", ")}`);
  }
  for (const field of ["dependencies", "peerDependencies"]) {
    for (const name of Object.keys(manifest[field] ?? {})) {
      if (!name.startsWith(SCOPE)) continue;
      const target = name.slice(SCOPE.length);
      if (allowedTarget(rule, target, folder)) continue;
      found.push(`packages/${folder}/package.json: ${field} names ${name}, which ${folder} may not depend on`);
    }
  }
  return found;
}

function checkSources(folder, packageDir, rule) {
  const found = [];
  const srcDir = join(packageDir, "src");
  for (const file of walk(srcDir)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1];
      const where = `packages/${folder}/${relative(packageDir, file)}`;
      if (specifier.startsWith(SCOPE)) {
        const target = specifier.slice(SCOPE.length).split("/")[0];
        if (!allowedTarget(rule, target, folder)) found.push(`${where}: imports ${specifier}; ${folder} may import only ${describe(rule)}`);
      } else if (specifier.startsWith(".")) {
        const target = resolve(dirname(file), specifier);
        if (!target.startsWith(packageDir + "/"))
          found.push(`${where}: relative import ${specifier} leaves the package; import the other package by name`);
      }
    }
  }
  return found;
}

// Tests and benchmarks may use any workspace package, but only one the package.json declares (so a
// clean install of that package alone has it), and never another package's files by relative path.
function checkTestSources(folder, packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const declared = new Set(["dependencies", "devDependencies", "peerDependencies"].flatMap((field) => Object.keys(manifest[field] ?? {})));
  const found = [];
  for (const file of ["tests", "bench"].flatMap((name) => [...walk(join(packageDir, name))])) {
    const where = `packages/${folder}/${relative(packageDir, file)}`;
    for (const match of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const specifier = match[1];
      if (specifier.startsWith(SCOPE)) {
        const name = specifier.split("/").slice(0, 2).join("/");
        if (name !== manifest.name && !declared.has(name))
          found.push(`${where}: imports ${name}, which packages/${folder}/package.json does not declare; add it to devDependencies`);
      } else if (specifier.startsWith(".") && !resolve(dirname(file), specifier).startsWith(packageDir + "/")) {
        found.push(
          `${where}: relative import ${specifier} reaches into another package's folder; move what is shared into @outpost/testkit`,
        );
      }
    }
  }
  return found;
}

function describe(rule) {
  return rule.allowed.length === 0 ? "no other @outpost package" : rule.allowed.map((name) => SCOPE + name).join(", ");
}
