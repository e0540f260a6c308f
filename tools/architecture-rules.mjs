// Which of our packages each package's shipped code (src/) may import. Dependencies point inward:
// plugins → core and plugin-utils (agents also → conversations), the engine → core and plugin-utils, queues → core
// and the engine, the CLI composes.
export const RULES = [
  { match: /^core$/, allowed: [], noRuntimeDependencies: true },
  { match: /^plugin-utils$/, allowed: ["core"] },
  { match: /^testkit$/, allowed: ["core"] },
  // Helpers two plugins need live once, in @outpost/plugin-utils: the one edge besides core (and conversations).
  { match: /^(provider|transport)-/, allowed: ["core", "plugin-utils"] },
  { match: /^conversations$/, allowed: ["core", "plugin-utils"] },
  { match: /^agent-/, allowed: ["core", "conversations", "plugin-utils"] },
  // The engine names no plugin: its default provider is found by plugin discovery (@outpost/core/plugin-packages).
  { match: /^dispatch$/, allowed: ["core", "plugin-utils"] },
  // Queues run the engine on remote workers: core and the engine's public API, never a plugin.
  { match: /^queue-/, allowed: ["core", "dispatch"] },
  // The CLI composes what is installed: it may import anything, but its src/ names no agent, provider or queue
  // plugin (it finds them through their descriptors, so a third-party plugin is one of equals).
  { match: /^cli$/, allowed: "any", namesNoPlugin: true },
  { match: /^e2e$/, allowed: "any" },
  // Private API doubles of the cloud services (tests and benches only): plugin-utils' process helpers, no plugin.
  { match: /^cloud-doubles$/, allowed: ["plugin-utils"] },
];

export function ruleFor(folder) {
  return RULES.find((rule) => rule.match.test(folder));
}
