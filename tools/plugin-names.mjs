// The CLI composes plugins it finds at run time (their descriptors), so its shipped code names none of them:
// no agent, provider or queue package, and none of their short names (`claude`, `docker`…), in code or text.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, relative } from "node:path";
import { walkSources } from "./source-files.mjs";

const PLUGIN_FOLDER = /^(agent|provider|queue)-(.+)$/;
// Short names that are ordinary words: a sentence may say "local" without meaning the provider.
const ORDINARY_WORDS = new Set(["local"]);

/** The words a plugin-blind package must not contain: every plugin's package name and short name. */
export function pluginWords(packagesDir) {
  const words = [];
  for (const folder of readdirSync(packagesDir).sort()) {
    const match = PLUGIN_FOLDER.exec(folder);
    if (match === null || !existsSync(join(packagesDir, folder, "package.json"))) continue;
    const manifest = JSON.parse(readFileSync(join(packagesDir, folder, "package.json"), "utf8"));
    words.push(manifest.name ?? `@outpost/${folder}`);
    if (!ORDINARY_WORDS.has(match[2])) words.push(match[2]);
  }
  return words;
}

/** One violation per line of `src/` that names a plugin. */
export function checkPluginNames(folder, packageDir, words) {
  if (words.length === 0) return [];
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  const pattern = new RegExp(`(?<![A-Za-z0-9])(${escaped.join("|")})(?![A-Za-z0-9])`, "i");
  const found = [];
  for (const file of walkSources(join(packageDir, "src"))) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, index) => {
        const match = pattern.exec(line);
        if (match)
          found.push(
            `packages/${folder}/${relative(packageDir, file)}:${index + 1}: names the plugin ${JSON.stringify(match[1])}; ${folder} must find plugins through their descriptors`,
          );
      });
  }
  return found;
}
