import { OutpostError } from "@outpost/core";
import { cliAgent, type CliAgentOptions } from "@outpost/plugin-utils";
import type { AgentAdapter } from "@outpost/core";
import { OPENCODE_FEATURES } from "./opencode-features.js";
import { DEFAULT_OPENCODE_PROVIDER, OPENCODE_API_KEY_VARIABLE, opencodeConfig, qualifyModel } from "./opencode-config.js";
import type { OpencodeEndpoint } from "./opencode-config.js";
import { opencodeConversationStore, withAgentExecutable } from "./opencode-conversation-store.js";
import { OpencodeDecoder } from "./opencode-decoder.js";
import { OPENCODE_FAILURE_RULES } from "./opencode-failure-rules.js";
import { OPENCODE_CLI } from "./opencode-version.js";

export interface OpencodeAgentOptions extends CliAgentOptions {
  /** The model endpoint, declared in the home config as an OpenAI-compatible provider. */
  readonly endpoint?: OpencodeEndpoint;
  /** Default model (`model` on the endpoint, or `provider/model`); a turn's `model` wins. */
  readonly model?: string;
  /** Default `opencode`. Also used by an opencode store passed in `storage` that names no executable. */
  readonly executable?: string;
}

/** Path of the user's global opencode config, relative to the home: Outpost never writes it. */
export const OPENCODE_CONFIG_PATH = ".config/opencode/opencode.json";

/** Variable that carries the turn's config as inline JSON (it outranks the global and project configs). */
export const OPENCODE_CONFIG_VARIABLE = "OPENCODE_CONFIG_CONTENT";

/** opencode (`opencode-ai`) as an Outpost agent. */
export function opencodeAgent(options: OpencodeAgentOptions = {}): AgentAdapter {
  const provider = options.endpoint?.provider ?? DEFAULT_OPENCODE_PROVIDER;
  return cliAgent({
    name: "opencode",
    options,
    variables: opencodeVariables(options),
    features: OPENCODE_FEATURES,
    cli: OPENCODE_CLI,
    // opencode prints no native final event; the turn ends when the process exits.
    requiresFinishedEvent: false,
    usage: "events",
    forkable: true,
    // A store passed without an executable of its own runs the agent's, not whatever `opencode` is on PATH.
    storage: ({ executable }) =>
      options.storage === undefined ? opencodeConversationStore({ executable }) : withAgentExecutable(options.storage, executable),
    failureRules: OPENCODE_FAILURE_RULES,
    command(turn, agent) {
      // `--auto` (`--dangerously-skip-permissions` before 1.17.18) approves permission prompts that would
      // otherwise be auto-rejected in `run` (e.g. paths outside the workspace); what the config denies stays denied.
      const flag = agent.release(turn.cliVersion).features.permissionFlag;
      const args = ["run", "--format", "json", ...(flag === undefined ? [] : [flag])];
      const model = turn.model ?? options.model;
      if (model !== undefined) args.push("--model", qualifyModel(model, provider));
      if (turn.resume !== undefined) {
        args.push("--session", assertSessionId(turn.resume.id));
        if (turn.resume.fork) args.push("--fork");
      }
      // No message argument: `opencode run` reads the prompt from stdin. opencode takes its project
      // directory from PWD when set (measured), so an inherited PWD would point it at the wrong tree.
      // The config travels in OPENCODE_CONFIG_CONTENT, which outranks the global and project configs, instead
      // of `~/.config/opencode/opencode.json`: on a host home that file is the user's own.
      const models = [options.model, turn.model].filter((name): name is string => name !== undefined);
      const config = opencodeConfig(options.endpoint, models, turn.model ?? options.model);
      return {
        executable: agent.executable,
        arguments: args,
        stdin: turn.prompt,
        variables: { ...agent.variables, [OPENCODE_CONFIG_VARIABLE]: config, PWD: turn.root },
        directory: turn.root,
      };
    },
    decoder: (context) => new OpencodeDecoder(OPENCODE_FAILURE_RULES, context?.diagnostic),
  });
}

// opencode session ids look like `ses_dc9aa0550ffeSQs24veX6XrWYC`; anything else could be read as an option.
function assertSessionId(id: string): string {
  if (!/^ses_[A-Za-z0-9]{1,64}$/.test(id)) {
    throw new OutpostError(
      "configuration",
      `${JSON.stringify(id)} is not an opencode session id (ses_…). Pass the id reported by the previous turn.`,
      {
        details: { agent: "opencode" },
      },
    );
  }
  return id;
}

function opencodeVariables(options: OpencodeAgentOptions): Record<string, string> {
  const variables: Record<string, string> = {
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_SHARE: "1",
    // On its first start in a fresh home opencode resolves @opencode-ai/plugin through its bundled npm
    // client (a registry lookup); offline mode makes that a local no-op. Measured with 1.18.33.
    npm_config_offline: "true",
  };
  if (options.endpoint?.apiKey !== undefined) variables[OPENCODE_API_KEY_VARIABLE] = options.endpoint.apiKey;
  return { ...variables, ...options.variables };
}
