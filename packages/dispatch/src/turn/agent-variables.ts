import { OutpostError, type AgentFeatures, type SandboxProvider } from "@outpost/core";
import { identityVariables, type GitIdentity } from "../git/git-identity.js";

/**
 * Variables every agent command gets: a git identity for its commits (through the environment, since the
 * sandbox home has no git config), then the repository's `.outpost/.env`, then the agent's own over it.
 * A name the provider also sets is refused, whether it comes from the agent or the env file.
 */
export function agentVariables(
  agent: AgentFeatures,
  provider: SandboxProvider,
  identity: GitIdentity,
  envFile: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const layered = { ...envFile, ...(agent.variables ?? {}) };
  const clash = Object.keys(layered).filter((name) => provider.variables && name in provider.variables);
  if (clash.length > 0) {
    const sources = clash.map((name) => `${name} (${agent.variables && name in agent.variables ? "agent variables" : ".outpost/.env"})`);
    throw new OutpostError(
      "configuration",
      `Provider ${provider.name} also sets ${sources.join(", ")} for agent ${agent.name}. Set each variable in one place only.`,
      { details: { variables: clash } },
    );
  }
  const identityOwn = Object.fromEntries(
    Object.entries(identityVariables(identity)).filter(([name]) => !(provider.variables && name in provider.variables)),
  );
  return { ...identityOwn, ...layered };
}
