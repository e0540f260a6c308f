import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's `node_modules/.bin`, where `npm ci` puts the pinned agent CLIs (devDependencies of e2e). */
export const CLI_BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "node_modules", ".bin");

/** PATH with the pinned CLIs first, for a lease's variables. */
export function pathWithClis(path = process.env["PATH"] ?? "/usr/bin:/bin"): string {
  return `${CLI_BIN}${delimiter}${path}`;
}

/** Reason a CLI cannot run here, or undefined when its pinned executable is installed. */
export function missingCli(executable: string): string | undefined {
  return existsSync(join(CLI_BIN, executable)) ? undefined : `${executable} is not installed in ${CLI_BIN} (run npm ci)`;
}
