import { gitStatus } from "./run-git.js";

/** Used only when the repository has no identity of its own; never written to any config file. */
export const FALLBACK_IDENTITY = { name: "Outpost", email: "outpost@localhost.invalid" } as const;

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/** The identity git would use in `directory`, or the fallback when none is configured. */
export async function resolveIdentity(directory: string): Promise<GitIdentity> {
  const [name, email] = await Promise.all([
    gitStatus(directory, ["config", "user.name"]),
    gitStatus(directory, ["config", "user.email"]),
  ]);
  return {
    name: name.status === 0 && name.stdout.trim() !== "" ? name.stdout.trim() : FALLBACK_IDENTITY.name,
    email: email.status === 0 && email.stdout.trim() !== "" ? email.stdout.trim() : FALLBACK_IDENTITY.email,
  };
}

/** Per-command `-c` options carrying an identity. */
export function identityConfig(identity: GitIdentity): Record<string, string> {
  return { "user.name": identity.name, "user.email": identity.email };
}

/** Environment variables giving the agent's own `git commit` an identity without touching its config. */
export function identityVariables(identity: GitIdentity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
}
