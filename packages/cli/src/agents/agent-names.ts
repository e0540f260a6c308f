/** Agents `outpost run --agent` knows by name. */
export const AGENT_NAMES = ["claude", "codex", "copilot", "gemini", "opencode", "kimi"] as const;

export type AgentName = (typeof AGENT_NAMES)[number];

export function isAgentName(name: string): name is AgentName {
  return (AGENT_NAMES as readonly string[]).includes(name);
}
