// The API reference of every published package (`npm run docs`, into docs/api; CI runs `npm run docs:check`).
// Each package is converted from its own `exports` map (TypeDoc's packages mode), so every entry a user can
// import is documented and nothing else. Needs the built declarations (`npm run build` first).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = import.meta.dirname;
const packages = readdirSync(join(root, "packages"))
  .filter((name) => !JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")).private)
  .map((name) => `packages/${name}`);

/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  name: "Outpost",
  entryPointStrategy: "packages",
  entryPoints: packages,
  packageOptions: { tsconfig: "tsconfig.lib.json", disableSources: true, disableGit: true },
  readme: "README.md",
  out: "docs/api",
  // The repository URL is not reachable from here; source links would be broken, so none are made.
  disableSources: true,
  disableGit: true,
  // A public type that names a type the package does not export leaves users unable to name it: a warning,
  // and warnings fail the check.
  validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: false, unusedMergeModuleWith: true },
  treatWarningsAsErrors: true,
};
