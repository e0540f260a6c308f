import { cliReleaseResolver, OutpostError } from "@outpost/core";
import type { AgentAdapter, AgentCommand, AgentHomeFile, AgentTurn, ConversationStore, DecoderContext } from "@outpost/core";
import { OPENCODE_FEATURES } from "./opencode-features.js";
import { DEFAULT_OPENCODE_PROVIDER, OPENCODE_API_KEY_VARIABLE, opencodeConfig, qualifyModel } from "./opencode-config.js";
import type { OpencodeEndpoint } from "./opencode-config.js";
import { opencodeConversationStore, withAgentExecutable } from "./opencode-conversation-store.js";
import { OpencodeDecoder } from "./opencode-decoder.js";
import { OPENCODE_FAILURE_RULES } from "./opencode-failure-rules.js";
import { OPENCODE_CLI } from "./opencode-version.js";

export interface OpencodeAgentOptions {
  /** The model endpoint, declared in the home config as an OpenAI-compatible provider. */
  readonly endpoint?: OpencodeEndpoint;
  /** Default model (`model` on the endpoint, or `provider/model`); a turn's `model` wins. */
  readonly model?: string;
  /** Extra variables for every command (credentials go here, never into files). */
  readonly variables?: Readonly<Record<string, string>>;
  /** Captures and restores sessions. Default: the opencode export/import store. */
  readonly storage?: ConversationStore;
  /** Default `opencode`. Also used by an opencode store passed in `storage` that names no executable. */
  readonly executable?: string;
  /** The CLI release that runs, when known without asking it (e.g. an image). Omitted: `<executable> --version`. */
  readonly version?: string;
}

/** Path of the config opencode reads, relative to the lease home. */
export const OPENCODE_CONFIG_PATH = ".config/opencode/opencode.json";

/** opencode (`opencode-ai`) as an Outpost agent. */
export function opencodeAgent(options: OpencodeAgentOptions = {}): AgentAdapter {
  const variables = Object.freeze(opencodeVariables(options));
  const provider = options.endpoint?.provider ?? DEFAULT_OPENCODE_PROVIDER;
  const executable = options.executable ?? "opencode";
  const release = cliReleaseResolver(OPENCODE_FEATURES, {
    executable,
    variables,
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "opencode",
    executable,
    bootstrap: "opencode",
    cli: OPENCODE_CLI,
    // opencode prints no native final event; the turn ends when the process exits.
    requiresFinishedEvent: false,
    usage: "events",
    variables,
    resumable: true,
    forkable: true,
    // A store passed without an executable of its own runs the agent's, not whatever `opencode` is on PATH.
    storage: options.storage === undefined ? opencodeConversationStore({ executable }) : withAgentExecutable(options.storage, executable),
    failureRules: OPENCODE_FAILURE_RULES,
    command(turn: AgentTurn): AgentCommand {
      // `--auto` (`--dangerously-skip-permissions` before 1.17.18) approves permission prompts that would
      // otherwise be auto-rejected in `run` (e.g. paths outside the workspace); what the config denies stays denied.
      const args = ["run", "--format", "json", release().features.permissionFlag];
      const model = turn.model ?? options.model;
      if (model !== undefined) args.push("--model", qualifyModel(model, provider));
      if (turn.resume !== undefined) {
        args.push("--session", assertSessionId(turn.resume.id));
        if (turn.resume.fork) args.push("--fork");
      }
      // No message argument: `opencode run` reads the prompt from stdin. opencode takes its project
      // directory from PWD when set (measured), so an inherited PWD would point it at the wrong tree.
      return { executable, arguments: args, stdin: turn.prompt, variables: { ...variables, PWD: turn.root }, directory: turn.root };
    },
    homeFiles(turn: AgentTurn): readonly AgentHomeFile[] {
      const models = [options.model, turn.model].filter((model): model is string => model !== undefined);
      return [{ path: OPENCODE_CONFIG_PATH, content: opencodeConfig(options.endpoint, models, turn.model ?? options.model) }];
    },
    createDecoder(context?: DecoderContext) {
      for (const warning of release().warnings) context?.diagnostic?.(warning);
      return new OpencodeDecoder(OPENCODE_FAILURE_RULES, context?.diagnostic);
    },
  };
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
