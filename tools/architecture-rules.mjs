// Which of our packages each package's shipped code (src/) may import. Dependencies point inward:
// plugins → core (agents also → conversations), the engine → core, queues → core and the engine, the CLI composes.
export const RULES = [
  { match: /^core$/, allowed: [], noRuntimeDependencies: true },
  { match: /^testkit$/, allowed: ["core"] },
  { match: /^(provider|transport)-/, allowed: ["core"] },
  { match: /^conversations$/, allowed: ["core"] },
  { match: /^agent-/, allowed: ["core", "conversations"] },
  { match: /^dispatch$/, allowed: ["core"] },
  // Queues run the engine on remote workers: core and the engine's public API, never a plugin.
  { match: /^queue-/, allowed: ["core", "dispatch"] },
  { match: /^(cli|e2e)$/, allowed: "any" },
];

export function ruleFor(folder) {
  return RULES.find((rule) => rule.match.test(folder));
}
