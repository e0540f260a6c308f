import { OutpostError } from "@outpost/core";

/** Which variables of the process that acquires a lease its commands see. */
export interface LocalEnvironmentConfig {
  /**
   * `"allow-list"` (default): only what a CLI needs to run ({@link INHERITED_VARIABLES}) plus `allow`.
   * `"all"`: every variable of this process, cloud keys and tokens included; choose it knowingly.
   */
  readonly inherit?: "allow-list" | "all";
  /** More names passed through with the allow-list; a trailing `*` matches a prefix (`"MY_TOOL_*"`). */
  readonly allow?: readonly string[];
}

/**
 * What a CLI needs from the invoking shell to run: the search path, locale, terminal, time zone, proxies,
 * temporary directory, user and the certificate bundles a corporate proxy needs. Credentials an agent
 * needs are declared by the agent (`variables`) or the provider, never taken from here.
 */
export const INHERITED_VARIABLES: readonly string[] = Object.freeze([
  "PATH",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "TZ",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "TMPDIR",
  "SHELL",
  "USER",
  "LOGNAME",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
]);

const NAME_PATTERN = /^[^=\0*]+\*?$/;

/** The variables of `source` a lease inherits under `config`; refuses malformed `allow` entries. */
export function inheritedEnvironment(source: NodeJS.ProcessEnv, config: LocalEnvironmentConfig = {}): Record<string, string> {
  const inherit = config.inherit ?? "allow-list";
  if (inherit !== "allow-list" && inherit !== "all") {
    throw new OutpostError(
      "configuration",
      `environment.inherit must be "allow-list" or "all", got ${JSON.stringify(inherit)}. Omit it to pass only the allow-list.`,
    );
  }
  for (const name of config.allow ?? []) {
    if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
      throw new OutpostError(
        "configuration",
        `environment.allow entry ${JSON.stringify(name)} is not a variable name: names cannot be empty or contain "=" or NUL, and "*" may only end a prefix. Pass e.g. "MY_TOOL_HOME" or "MY_TOOL_*".`,
      );
    }
  }
  const allowed = [...INHERITED_VARIABLES, ...(config.allow ?? [])];
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (inherit === "all" || allowed.some((pattern) => matches(pattern, name))) environment[name] = value;
  }
  return environment;
}

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}
