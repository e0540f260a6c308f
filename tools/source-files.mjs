// The source files of a folder, recursively: JavaScript and TypeScript, declaration files excepted.
import { readdirSync, statSync, existsSync } from "node:fs";
import { join } from "node:path";

export function* walkSources(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walkSources(path);
    else if (/\.(m|c)?[jt]sx?$/.test(name) && !name.endsWith(".d.ts")) yield path;
  }
}
