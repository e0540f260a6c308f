import { gitStatus } from "./run-git.js";

/** Used only when the repository has no identity of its own; never written to any config file. */
export const FALLBACK_IDENTITY = { name: "Outpost", email: "outpost@localhost.invalid" } as const;

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/** The identity git would use in `directory`, or the fallback when none is configured. */
export async function resolveIdentity(directory: string): Promise<GitIdentity> {
  const found = await gitStatus(directory, ["config", "--null", "--get-regexp", "^user\\.(name|email)$"]);
  const values = new Map<string, string>();
  for (const entry of found.stdout.split("\0")) {
    const newline = entry.indexOf("\n");
    if (newline > 0) values.set(entry.slice(0, newline), entry.slice(newline + 1));
  }
  return {
    name: values.get("user.name")?.trim() || FALLBACK_IDENTITY.name,
    email: values.get("user.email")?.trim() || FALLBACK_IDENTITY.email,
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
