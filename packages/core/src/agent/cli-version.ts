/** What an agent's CLI can do from `since` on, until the next row of its table. */
export interface CliFeatureRow<Features> {
  readonly since: string;
  readonly features: Features;
}

/** An agent's per-version feature table: the data its command is built from. */
export interface CliFeatureTable<Features> {
  /** Agent name, as in diagnostics (`codex`). */
  readonly agent: string;
  /** The release the plugin was recorded against and installs. */
  readonly pinned: string;
  /** Oldest and newest releases the version matrix runs. */
  readonly tested: { readonly oldest: string; readonly newest: string };
  /** Ascending by `since`; the first row also stands for older releases. */
  readonly rows: readonly CliFeatureRow<Features>[];
  /**
   * What runs when the version is unknown (it could not be learned in time): choices that work on every
   * release (a flag left out) or that refuse up front (no fork). Absent: the pinned release's features.
   * `effect` says it in a few words for the warning ("fork is refused").
   */
  readonly unknown?: { readonly features: Features; readonly effect: string };
}

/** The CLI release a turn runs with, and what it can do. */
export interface CliRelease<Features> {
  /** Undefined when it is unknown (the table's `unknown` features are used). */
  readonly version?: string;
  readonly features: Features;
  /** Non-blocking problems: a version outside the tested range, or one that could not be learned. */
  readonly warnings: readonly string[];
}

/** The first `major.minor.patch` in a `--version` output (`codex-cli 0.171.0`, `GitHub Copilot CLI 1.0.92.`). */
export function parseCliVersion(text: string): string | undefined {
  return /(\d+)\.(\d+)\.(\d+)/.exec(text)?.[0];
}

/**
 * Orders `major.minor.patch` versions numerically (suffixes such as `-beta` are ignored).
 * Why not `semver`: what reaches this is three numbers (`parseCliVersion`, the tables' literals), where its
 * `compare` gives the same order; it would be core's first runtime dependency, in every plugin's install, and
 * loading `semver/functions/compare` cost 1.25× a bare `node -e ""` start (median of 15 each, same run,
 * 2 cores under load: 310 vs 248 ms).
 */
export function compareVersions(left: string, right: string): number {
  const a = numbers(left);
  const b = numbers(right);
  for (let index = 0; index < 3; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/** The release `version` stands for in `table`; undefined `version` (unknown) means the table's safe choices. */
export function cliRelease<Features>(
  table: CliFeatureTable<Features>,
  version: string | undefined,
  problem?: string,
): CliRelease<Features> {
  const range = `${table.tested.oldest}–${table.tested.newest}`;
  if (version === undefined) {
    const effect = table.unknown?.effect ?? `the pinned ${table.pinned}'s flags are used`;
    return {
      features: table.unknown?.features ?? featuresAt(table, table.pinned),
      warnings: [
        `${table.agent}: the CLI version is unknown${problem ? ` (${problem})` : ""}; ${effect}. ` +
          `Name the release with --agent-version (the agent's \`version\` option).`,
      ],
    };
  }
  const outside = compareVersions(version, table.tested.oldest) < 0 || compareVersions(version, table.tested.newest) > 0;
  const affected = affectedFeatures(table, version);
  return {
    version,
    features: featuresAt(table, version),
    warnings: outside
      ? [
          `${table.agent} ${version} is outside the tested range ${range} (pinned ${table.pinned}); it runs, but its flags and events are not verified` +
            (affected.length > 0 ? `; affected: ${affected.join(", ")}.` : "."),
        ]
      : [],
  };
}

/**
 * The features `version` has otherwise than the pinned release, each with the release that has the pinned
 * behaviour (`fork (from 0.148.0)`): what an out-of-range version changes.
 */
export function affectedFeatures<Features>(table: CliFeatureTable<Features>, version: string): string[] {
  const pinned = featuresAt(table, table.pinned) as Record<string, unknown>;
  const here = featuresAt(table, version) as Record<string, unknown>;
  return Object.keys(pinned)
    .filter((name) => here[name] !== pinned[name])
    .map((name) => {
      const since = firstVersionWith(table, (features) => (features as Record<string, unknown>)[name] === pinned[name]);
      return since === undefined ? name : `${name} (from ${since})`;
    });
}

/** The oldest release in the table whose features pass `test`, or undefined when none does. */
export function firstVersionWith<Features>(table: CliFeatureTable<Features>, test: (features: Features) => boolean): string | undefined {
  return table.rows.find((row) => test(row.features))?.since;
}

function featuresAt<Features>(table: CliFeatureTable<Features>, version: string): Features {
  let chosen = table.rows[0];
  for (const row of table.rows) if (compareVersions(row.since, version) <= 0) chosen = row;
  if (!chosen) throw new Error(`The ${table.agent} feature table has no rows.`);
  return chosen.features;
}

function numbers(version: string): number[] {
  return (/(\d+)\.(\d+)\.(\d+)/.exec(version)?.slice(1) ?? []).map(Number);
}
