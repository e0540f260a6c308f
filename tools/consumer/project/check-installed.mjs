// Before any test: every entry of every installed @outpost package resolves, from this project, to a file in
// node_modules/@outpost/<name>/dist (never a workspace link, never TypeScript sources), and imports.
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const modules = join(process.cwd(), "node_modules", "@outpost");
const problems = [];
let entries = 0;
for (const name of readdirSync(modules)) {
  const manifest = JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8"));
  for (const entry of Object.keys(manifest.exports ?? {}).filter((key) => key !== "./package.json")) {
    const specifier = `@outpost/${name}${entry.slice(1)}`;
    entries++;
    let file;
    try {
      file = realpathSync(fileURLToPath(import.meta.resolve(specifier)));
    } catch (error) {
      problems.push(`${specifier}: ${error.message}`);
      continue;
    }
    if (!file.startsWith(join(realpathSync(modules), name, "dist") + "/")) problems.push(`${specifier} → ${file}`);
    await import(specifier).catch((error) => problems.push(`${specifier}: ${error.message}`));
  }
}
if (problems.length > 0) {
  console.error(`consumer: installed entries that do not resolve to their dist/:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`consumer: ${entries} entries of ${readdirSync(modules).length} @outpost packages resolve to node_modules/@outpost/*/dist`);
