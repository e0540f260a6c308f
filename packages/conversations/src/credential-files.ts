/**
 * Names of files that hold credentials wherever they appear: tools an agent runs and CLIs that keep auth
 * next to their sessions write them. A session bundle or sidecar never captures them.
 */
export const COMMON_CREDENTIAL_FILES: readonly string[] = Object.freeze([
  ".env",
  ".env.*",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".dockercfg",
  "credentials",
  "credentials.json",
  ".credentials.json",
  "auth.json",
  "oauth_creds.json",
  "token.json",
  "tokens.json",
  "id_rsa",
  "id_ecdsa",
  "id_ed25519",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
]);

/**
 * A pattern of bundle-relative paths any of whose segments is one of `names` (exact, or a `*` glob within
 * one segment): a credential folder excludes everything below it. Combine it into a profile's `exclude`.
 */
export function credentialFiles(names: readonly string[]): RegExp {
  const alternatives = names.map((name) =>
    name
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
      .join("[^/]*"),
  );
  return new RegExp(`(^|/)(${alternatives.join("|")})(/|$)`);
}

/** One pattern matching what any of `patterns` matches (flags dropped: profiles refuse g and y). */
export function anyOf(...patterns: readonly RegExp[]): RegExp {
  return new RegExp(patterns.map((pattern) => `(?:${pattern.source})`).join("|"));
}
