import { OutpostError } from "../errors/outpost-error.js";

/** Every plugin contract of `@outpost/core`, with the specification versions this core understands. */
export const SUPPORTED_SPECIFICATION_VERSIONS = Object.freeze({
  "agent adapter": Object.freeze(["v1"]),
  "sandbox provider": Object.freeze(["v1"]),
  "sandbox lease": Object.freeze(["v1"]),
  transport: Object.freeze(["v1"]),
  "conversation store": Object.freeze(["v1"]),
  "session bundle profile": Object.freeze(["v1"]),
} as const);

export type PluginContract = keyof typeof SUPPORTED_SPECIFICATION_VERSIONS;

/**
 * The one check of a plugin's `specificationVersion`, run wherever a plugin is handed to the engine or a kit.
 * A plugin built against another version of a contract fails here, by name, instead of misbehaving later.
 */
export function assertSpecificationVersion(plugin: unknown, contract: PluginContract): void {
  const supported: readonly string[] = SUPPORTED_SPECIFICATION_VERSIONS[contract];
  const label = describePlugin(plugin, contract);
  if (typeof plugin !== "object" || plugin === null) {
    throw new OutpostError(
      "configuration",
      `Expected a ${contract}, got ${plugin === null ? "null" : typeof plugin}. Pass the object the plugin's factory returns.`,
      {
        details: { contract },
      },
    );
  }
  const version: unknown = (plugin as { specificationVersion?: unknown }).specificationVersion;
  // Omitted means the version the reference pages describe (their signatures have no such field): plugins
  // written as the pages show them run; only a version this core does not know is refused.
  if (version === undefined || (typeof version === "string" && supported.includes(version))) return;
  const found = `declares specificationVersion ${JSON.stringify(version)}`;
  throw new OutpostError(
    "configuration",
    `${label} ${found}; this @outpost/core supports ${supported.map((entry) => JSON.stringify(entry)).join(", ")} for a ${contract}. ` +
      `Install plugin and @outpost/core versions that agree, or set specificationVersion in the plugin.`,
    {
      details: {
        contract,
        plugin: pluginName(plugin),
        specificationVersion: version === undefined ? null : String(version),
        supported: [...supported],
      },
    },
  );
}

function pluginName(plugin: unknown): string | undefined {
  if (typeof plugin !== "object" || plugin === null) return undefined;
  const { name, format } = plugin as { name?: unknown; format?: unknown };
  return typeof name === "string" ? name : typeof format === "string" ? format : undefined;
}

function describePlugin(plugin: unknown, contract: PluginContract): string {
  const name = pluginName(plugin);
  return name === undefined ? `The ${contract}` : `The ${contract} ${JSON.stringify(name)}`;
}
