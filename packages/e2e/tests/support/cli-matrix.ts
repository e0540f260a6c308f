import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** One release of the version matrix: a line of `cli-matrix/versions.txt`. */
export interface MatrixRelease {
  readonly agent: string;
  readonly npmPackage: string;
  readonly version: string;
  /** Absolute path of its executable in the matrix cache. */
  readonly executable: string;
  /** Why it cannot run here (not installed), or undefined. */
  readonly missing?: string;
}

const MATRIX = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "cli-matrix");

/** Where tools/install-cli-matrix.sh installs the releases (one npm prefix per release). */
export function matrixCache(): string {
  return process.env["OUTPOST_CLI_MATRIX"] ?? "/var/cache/outpost/cli-matrix";
}

/** The releases of `cli-matrix/versions.txt`, each with its executable in the cache. */
export function matrixReleases(): MatrixRelease[] {
  return releasesOf("versions.txt");
}

/** The releases of `cli-matrix/outside.txt`: outside the tested range, for tests of what happens then. */
export function outsideReleases(): MatrixRelease[] {
  return releasesOf("outside.txt");
}

function releasesOf(list: string): MatrixRelease[] {
  return readFileSync(join(MATRIX, list), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [agent = "", npmPackage = "", version = ""] = line.split(/\s+/);
      const executable = join(matrixCache(), `${agent}-${version}`, "node_modules", ".bin", agent);
      const missing = existsSync(executable)
        ? undefined
        : `${npmPackage}@${version} is not installed in ${matrixCache()} (run tools/install-cli-matrix.sh)`;
      return { agent, npmPackage, version, executable, ...(missing ? { missing } : {}) };
    });
}
