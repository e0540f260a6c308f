import { OutpostError, type AgentAdapter, type SandboxProvider } from "@outpost/core";
import { identityVariables, type GitIdentity } from "../git/git-identity.js";

/**
 * Variables every agent command gets: the agent's own plus a git identity for its commits (through the
 * environment, since the sandbox home has no git config). A name the provider also sets is refused.
 */
export function agentVariables(agent: AgentAdapter, provider: SandboxProvider, identity: GitIdentity): Record<string, string> {
  const agentOwn = agent.variables ?? {};
  const clash = Object.keys(agentOwn).filter((name) => provider.variables && name in provider.variables);
  if (clash.length > 0) {
    throw new OutpostError("configuration", `Agent ${agent.name} and provider ${provider.name} both set ${clash.join(", ")}. Set each variable in one place only.`, { details: { variables: clash } });
  }
  const identityOwn = Object.fromEntries(Object.entries(identityVariables(identity)).filter(([name]) => !(provider.variables && name in provider.variables)));
  return { ...identityOwn, ...agentOwn };
}
