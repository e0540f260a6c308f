// Creates the skeleton of a workspace package: package.json, tsconfigs, vitest project, src/, tests/.
// Usage: node tools/scaffold-package.mjs <folder> "<description>" [json-with-extra-package-fields]
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const [folder, description, extra = "{}"] = process.argv.slice(2);
if (!folder || !description) throw new Error("usage: scaffold-package <folder> <description> [extra-json]");
const root = join("packages", folder);
if (existsSync(join(root, "package.json"))) throw new Error(`${root} exists already`);
mkdirSync(join(root, "src"), { recursive: true });
mkdirSync(join(root, "tests"), { recursive: true });
const extraFields = JSON.parse(extra);
const manifest = {
  name: `@outpost/${folder}`,
  version: "0.1.0",
  description,
  type: "module",
  license: "MIT",
  exports: {
    ".": { "outpost-source": "./src/index.ts", types: "./dist/index.d.ts", import: "./dist/index.js" },
    "./package.json": "./package.json",
  },
  files: ["dist", "README.md"],
  scripts: { build: "tsc -p tsconfig.lib.json", test: "vitest run" },
  ...extraFields,
};
const write = (name, value) => writeFileSync(join(root, name), typeof value === "string" ? value : JSON.stringify(value, null, 2) + "\n");
write("package.json", manifest);
write("tsconfig.lib.json", { extends: "../../tsconfig.base.json", compilerOptions: { rootDir: "src", outDir: "dist" }, include: ["src"] });
write("tsconfig.json", { extends: "../../tsconfig.base.json", compilerOptions: { noEmit: true }, include: ["src", "tests", "bench"] });
write("vitest.config.ts", `import { outpostProject } from "../../vitest.shared.js";\n\nexport default outpostProject(${JSON.stringify(folder)});\n`);
