import { spawnSync } from "node:child_process";
import { cliRelease, parseCliVersion, type CliFeatureTable, type CliRelease } from "./cli-version.js";

export interface CliVersionSource {
  /** The executable the agent runs (a name looked up on PATH, or a path). */
  readonly executable: string;
  /** Known version: skips the probe (e.g. a Docker image whose CLI is not on the host). */
  readonly version?: string;
  /** The agent's variables: the probe runs with them (PATH finds the executable; Copilot's loader, for one,
   * runs a newer cached release unless COPILOT_AUTO_UPDATE=false). */
  readonly variables?: Readonly<Record<string, string>>;
}

export interface CliVersionProbe {
  readonly version?: string;
  /** Why no version was learned. */
  readonly problem?: string;
}

const PROBE_TIMEOUT_MS = 10_000;
const probes = new Map<string, CliVersionProbe>();

/**
 * `<executable> --version` on this host with the agent's variables, once per executable and variables (cached
 * for the process), bounded by a short timeout. Synchronous so that an adapter's `forkable` can answer before
 * anything is allocated.
 */
export function learnCliVersion(executable: string, variables: Readonly<Record<string, string>> = {}): CliVersionProbe {
  const path = variables["PATH"] ?? process.env["PATH"] ?? "";
  const key = JSON.stringify([executable, path, Object.entries(variables).sort(([left], [right]) => (left < right ? -1 : 1))]);
  const known = probes.get(key);
  if (known) return known;
  const result = spawnSync(executable, ["--version"], {
    encoding: "utf8",
    timeout: PROBE_TIMEOUT_MS,
    env: { ...process.env, ...variables, PATH: path, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024,
  });
  const version = result.error ? undefined : parseCliVersion(`${result.stdout ?? ""}\n${result.stderr ?? ""}`);
  const probe: CliVersionProbe = version
    ? { version }
    : {
        problem: result.error
          ? `\`${executable} --version\`: ${result.error.message}`
          : `\`${executable} --version\` printed no version (exit ${result.status})`,
      };
  probes.set(key, probe);
  return probe;
}

/** The release an agent runs, learned once on first use (lazily, so building an adapter never spawns). */
export function cliReleaseResolver<Features>(table: CliFeatureTable<Features>, source: CliVersionSource): () => CliRelease<Features> {
  let release: CliRelease<Features> | undefined;
  return () => {
    if (release) return release;
    if (source.version !== undefined) {
      const given = parseCliVersion(source.version);
      release = given
        ? cliRelease(table, given)
        : cliRelease(table, undefined, `\`version\` ${JSON.stringify(source.version)} is not major.minor.patch`);
    } else {
      const probe = learnCliVersion(source.executable, source.variables);
      release = cliRelease(table, probe.version, probe.problem);
    }
    return release;
  };
}
