import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { ServedPackage } from "./npm-registry-double.js";

const require = createRequire(import.meta.url);

/**
 * The installed release of `name` as the registry double serves it: its package.json and its `npm pack`
 * tarball in `directory`, packed from npm's cache (`--prefer-offline`: nothing is downloaded).
 */
export function packedPackage(name: string, directory: string): ServedPackage {
  const manifest = require(`${name}/package.json`) as ServedPackage["manifest"];
  const output = execFileSync(
    "npm",
    ["pack", `${name}@${manifest.version}`, "--prefer-offline", "--json", "--pack-destination", directory],
    {
      encoding: "utf8",
      cwd: directory,
    },
  );
  const [result] = JSON.parse(output) as { filename: string }[];
  return { manifest, tarball: join(directory, result!.filename) };
}
