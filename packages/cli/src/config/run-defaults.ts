import type { RunFlags } from "../program.js";
import { CONFIG_FLAGS } from "./config-keys.js";
import type { LoadedConfig } from "./config-file.js";

type ConfigKey = keyof typeof CONFIG_FLAGS;

// Settings of container providers: a config default applies only when the chosen provider reads it, where the
// same flag on the command line is refused (one config file serves runs with --provider local too).
const PROVIDER_KEYS: ReadonlySet<ConfigKey> = new Set(["image", "network"]);

export interface RunDefaults {
  readonly flags: RunFlags;
  /** Provider options from the config, by descriptor option name, for the providers that read them. */
  readonly providerDefaults: Readonly<Record<string, unknown>>;
}

/** `flags` with the config's values for every flag not given on the command line: flags win. */
export function withConfigDefaults(flags: RunFlags, given: ReadonlySet<string>, loaded: LoadedConfig | undefined): RunDefaults {
  const merged: Record<string, unknown> = { ...flags };
  const providerDefaults: Record<string, unknown> = {};
  for (const [key, flag] of Object.entries(CONFIG_FLAGS) as [ConfigKey, string][]) {
    const value = loaded?.config[key];
    if (value === undefined || given.has(flag)) continue;
    if (PROVIDER_KEYS.has(key)) providerDefaults[flag] = value;
    else merged[flag] = value;
  }
  return { flags: merged as unknown as RunFlags, providerDefaults };
}

const BUILT_IN: Readonly<Record<ConfigKey, string>> = {
  agent: "none (required)",
  provider: "the first that reports itself available",
  model: "the agent's own",
  branch: "current",
  image: "the provider's default",
  network: "bridge",
  passes: "1",
  "deadline-ms": "none",
  "idle-ms": "the agent's own",
};

/** The `Defaults` section of `outpost run --help`: each flag's default and where it comes from. */
export function defaultsHelp(loaded: LoadedConfig | undefined, problem: string | undefined): string {
  const rows = (Object.keys(CONFIG_FLAGS) as ConfigKey[]).map((key) => {
    const value = loaded?.config[key];
    return value === undefined ? [`--${key}`, BUILT_IN[key], "built in"] : [`--${key}`, String(value), loaded!.path];
  });
  const width = (column: number) => Math.max(...rows.map((row) => row[column]!.length));
  const lines = rows.map(
    (row) => `  ${row[0]!.padEnd(width(0))}  ${row[1]!.padEnd(width(1))}  ${row[2] === "built in" ? "built in" : `from ${row[2]}`}`,
  );
  const note = problem
    ? `  (${problem.split("\n")[0]})`
    : loaded
      ? "  Flags win over the config file."
      : "  No .outpost/config.json in this checkout: `outpost init` writes one.";
  return `\nDefaults (flag, value, where it comes from):\n${lines.join("\n")}\n${note}\n`;
}
