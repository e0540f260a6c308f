import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { OutpostError } from "@outpost/core";

/** Written by tools/build-sandbox-programs.mjs; shipped in the package's `dist/`. */
export const SANDBOX_PROGRAMS_FILE = "dist/sandbox-programs.cjs";
const PACKAGE_NAME = "@outpost/conversations";

let source: string | undefined;

/** The text of the sandbox programs' file, read once. The same file runs built or from sources. */
export function sandboxProgramsSource(): string {
  source ??= readProgramsFile();
  return source;
}

function readProgramsFile(): string {
  const file = join(packageRoot(), SANDBOX_PROGRAMS_FILE);
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new OutpostError(
      "configuration",
      `The sandbox programs of ${PACKAGE_NAME} are missing (${file}): reinstall the package, or build it (npm run build) in a checkout.`,
      { cause: error, details: { file } },
    );
  }
}

/** This package's folder: the nearest package.json of this name above this module (dist/… or src/…). */
function packageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let folder = start; ; folder = dirname(folder)) {
    const manifest = join(folder, "package.json");
    if (existsSync(manifest) && nameOf(manifest) === PACKAGE_NAME) return folder;
    if (dirname(folder) === folder) {
      throw new OutpostError(
        "configuration",
        `Could not find the folder of ${PACKAGE_NAME} above ${start}. Do not bundle it into another file.`,
      );
    }
  }
}

function nameOf(manifest: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name;
  } catch {
    return undefined;
  }
}
