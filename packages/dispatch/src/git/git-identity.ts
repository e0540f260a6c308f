import { gitStatus } from "./run-git.js";

/** Used only when the repository has no identity of its own; never written to any config file. */
export const FALLBACK_IDENTITY = { name: "Outpost", email: "outpost@localhost.invalid" } as const;

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/** The identity git would use in `directory`, or the fallback when none is configured. */
export async function resolveIdentity(directory: string): Promise<GitIdentity> {
  const found = await gitStatus(directory, [...IDENTITY_QUERY]);
  return parseIdentity(found.stdout);
}

/** The git arguments that list the configured identity (`--null` output, empty when none). */
export const IDENTITY_QUERY = ["config", "--null", "--get-regexp", "^user\\.(name|email)$"] as const;

/** The identity in the output of IDENTITY_QUERY, with the fallback for what is not configured. */
export function parseIdentity(output: string): GitIdentity {
  const values = new Map<string, string>();
  for (const entry of output.split("\0")) {
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
