/** The model endpoint opencode talks to, declared as an OpenAI-compatible provider in its config. */
export interface OpencodeEndpoint {
  /** e.g. `http://127.0.0.1:18181/v1`. */
  readonly baseUrl: string;
  /** Passed as a variable; the config file only references it (`{env:…}`). */
  readonly apiKey?: string;
  /** Provider id in the config and in `provider/model` names. Default `outpost`. */
  readonly provider?: string;
  /** Model ids the endpoint serves (the default and each turn's model are added). */
  readonly models?: readonly string[];
  /** Context window and output limit declared for each model. Default 128000 / 8192. */
  readonly contextTokens?: number;
  readonly outputTokens?: number;
}

/** Variable the config reads the endpoint key from, so the key is never written to disk. */
export const OPENCODE_API_KEY_VARIABLE = "OUTPOST_OPENCODE_API_KEY";

export const DEFAULT_OPENCODE_PROVIDER = "outpost";

/** `~/.config/opencode/opencode.json`: the endpoint, a default model, no autoupdate, no sharing, unattended permissions. */
export function opencodeConfig(
  endpoint: OpencodeEndpoint | undefined,
  models: readonly string[],
  defaultModel: string | undefined,
): string {
  const provider = endpoint?.provider ?? DEFAULT_OPENCODE_PROVIDER;
  const config: Record<string, unknown> = {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    // The sandbox is the boundary; web access stays off so nothing leaves through the agent's tools.
    permission: { edit: "allow", bash: "allow", webfetch: "deny" },
  };
  if (defaultModel !== undefined) {
    const qualified = qualifyModel(defaultModel, provider);
    // The title side request uses small_model: keep it on the same endpoint.
    config["model"] = qualified;
    config["small_model"] = qualified;
  }
  if (endpoint !== undefined) {
    const declared: Record<string, unknown> = {};
    const limit = { context: endpoint.contextTokens ?? 128_000, output: endpoint.outputTokens ?? 8_192 };
    for (const model of new Set([...(endpoint.models ?? []), ...models])) {
      if (model.includes("/") && !model.startsWith(`${provider}/`)) continue;
      const id = model.startsWith(`${provider}/`) ? model.slice(provider.length + 1) : model;
      declared[id] = { name: id, tool_call: true, limit };
    }
    config["provider"] = {
      [provider]: {
        npm: "@ai-sdk/openai-compatible",
        name: "Outpost endpoint",
        options: { baseURL: endpoint.baseUrl, ...(endpoint.apiKey === undefined ? {} : { apiKey: `{env:${OPENCODE_API_KEY_VARIABLE}}` }) },
        models: declared,
      },
    };
  }
  return JSON.stringify(config, null, 2) + "\n";
}

/** `model` → `provider/model` unless it already names a provider. */
export function qualifyModel(model: string, provider: string): string {
  return model.includes("/") ? model : `${provider}/${model}`;
}
