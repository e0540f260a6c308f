import type { AgentHomeFile, ModelReasoning } from "@outpost/core";

/** Name of the variable that carries the API key of the configured endpoint (never written to a file). */
export const CODEX_API_KEY_VARIABLE = "OUTPOST_CODEX_API_KEY";

export interface CodexConfigOptions {
  /** OpenAI Responses-compatible endpoint including `/v1`, e.g. `http://127.0.0.1:18181/v1`. */
  readonly baseUrl?: string;
  readonly model?: string;
  /** `request_max_retries` / `stream_max_retries` of the endpoint. */
  readonly maxRetries?: number;
  /** `model_reasoning_effort`. */
  readonly reasoning?: ModelReasoning;
}

/**
 * `~/.codex/config.toml` as measured offline: a custom provider (the `OPENAI_BASE_URL` variable is ignored and
 * `openai_base_url` first tries a WebSocket 7 times), update checks, analytics and plugin sync off.
 */
export function codexConfig(options: CodexConfigOptions): AgentHomeFile {
  const lines = ["# Written by @outpost/agent-codex.", "check_for_update_on_startup = false"];
  if (options.model !== undefined) lines.push(`model = ${tomlString(options.model)}`);
  if (options.reasoning !== undefined) lines.push(`model_reasoning_effort = ${tomlString(options.reasoning)}`);
  if (options.baseUrl !== undefined) lines.push(`model_provider = "outpost"`);
  lines.push("", "[analytics]", "enabled = false", "", "[features]", "plugins = false");
  if (options.baseUrl !== undefined) {
    lines.push(
      "",
      "[model_providers.outpost]",
      `name = "Outpost endpoint"`,
      `base_url = ${tomlString(options.baseUrl)}`,
      `env_key = "${CODEX_API_KEY_VARIABLE}"`,
      `wire_api = "responses"`,
    );
    if (options.maxRetries !== undefined) {
      lines.push(
        `request_max_retries = ${Math.max(0, Math.floor(options.maxRetries))}`,
        `stream_max_retries = ${Math.max(0, Math.floor(options.maxRetries))}`,
      );
    }
  }
  return { path: ".codex/config.toml", content: `${lines.join("\n")}\n` };
}

/**
 * The same settings as `-c key=value` overrides (values parsed as TOML), layered over `~/.codex/config.toml`
 * without writing it: on a host home that file is the user's own.
 */
export function codexConfigOverrides(options: CodexConfigOptions): string[] {
  const pairs: [string, string][] = [["check_for_update_on_startup", "false"]];
  if (options.model !== undefined) pairs.push(["model", tomlString(options.model)]);
  if (options.reasoning !== undefined) pairs.push(["model_reasoning_effort", tomlString(options.reasoning)]);
  pairs.push(["analytics.enabled", "false"], ["features.plugins", "false"]);
  if (options.baseUrl !== undefined) {
    pairs.push(
      ["model_provider", '"outpost"'],
      ["model_providers.outpost.name", '"Outpost endpoint"'],
      ["model_providers.outpost.base_url", tomlString(options.baseUrl)],
      ["model_providers.outpost.env_key", `"${CODEX_API_KEY_VARIABLE}"`],
      ["model_providers.outpost.wire_api", '"responses"'],
    );
    if (options.maxRetries !== undefined) {
      const retries = String(Math.max(0, Math.floor(options.maxRetries)));
      pairs.push(["model_providers.outpost.request_max_retries", retries], ["model_providers.outpost.stream_max_retries", retries]);
    }
  }
  return pairs.flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}

/** A TOML basic string: JSON's escapes are valid TOML escapes, and control characters are escaped. */
function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\u007f/g, "\\u007f");
}
