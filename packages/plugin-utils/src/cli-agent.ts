import { cliReleaseResolver } from "@outpost/core";
import type { AgentAdapter, AgentCommand, AgentHomeFile, AgentLineDecoder, AgentLiveInput, AgentTurn } from "@outpost/core";
import type {
  CliFeatureTable,
  CliRelease,
  ConversationStore,
  DecoderContext,
  FailureRule,
  PinnedCli,
  Usage,
  UsageMode,
} from "@outpost/core";

/** The options every CLI agent takes besides its endpoint; an agent's options interface extends them. */
export interface CliAgentOptions {
  /** Default model; a turn's `model` wins. */
  readonly model?: string;
  /** The CLI to run (a name looked up on PATH, or a path). Default: the agent's name. */
  readonly executable?: string;
  /** The CLI release that runs, when known without asking it (e.g. an image). Omitted: `<executable> --version`. */
  readonly version?: string;
  /** Extra variables for every command (credentials belong here, never in files). */
  readonly variables?: Readonly<Record<string, string>>;
  /** Captures and restores sessions. Default: the agent's own store. */
  readonly storage?: ConversationStore;
}

/** What an agent's own parts are given: the resolved executable and variables, and the release that runs. */
export interface CliAgentRuntime<Features> {
  readonly executable: string;
  /** The agent's variables (frozen), passed to every command. */
  readonly variables: Readonly<Record<string, string>>;
  /** The CLI release, learned on first call (never while the adapter is built). Only with a feature table. */
  release(): CliRelease<Features>;
}

/** What makes one CLI agent itself; `cliAgent` adds the shape every CLI agent shares. */
export interface CliAgentDefinition<Features> {
  /** The agent's name: also its default executable and, with `cli`, the bootstrap name. */
  readonly name: string;
  readonly options: CliAgentOptions;
  /** The agent's variables for every command (its options' `variables` already merged in). */
  readonly variables: Readonly<Record<string, string>>;
  /** Per-release features. Absent for a CLI whose releases are not tracked: nothing is ever probed. */
  readonly features?: CliFeatureTable<Features>;
  /** The npm package and version bootstrap installs. Absent: nothing to install in a remote sandbox. */
  readonly cli?: PinnedCli;
  /** Whether a turn without the CLI's final event is a failure. */
  readonly requiresFinishedEvent: boolean;
  readonly usage: UsageMode;
  readonly namesConversations?: boolean;
  /** A fixed answer, or read from the release (asked only when a fork is considered). */
  readonly forkable: boolean | ((agent: CliAgentRuntime<Features>) => boolean);
  /** The store used (the options' `storage`, or the agent's default). */
  storage(agent: CliAgentRuntime<Features>): ConversationStore;
  readonly failureRules: readonly FailureRule[];
  command(turn: AgentTurn, agent: CliAgentRuntime<Features>): AgentCommand;
  decoder(context: DecoderContext | undefined, agent: CliAgentRuntime<Features>): AgentLineDecoder;
  unsupported?(feature: "continuation" | "fork", agent: CliAgentRuntime<Features>): string | undefined;
  transcriptUsage?(text: string, agent: CliAgentRuntime<Features>): Usage | undefined;
  liveInput?(agent: CliAgentRuntime<Features>): AgentLiveInput;
  homeFiles?(turn: AgentTurn): readonly AgentHomeFile[];
}

/**
 * Rule: a CLI agent's adapter learns its CLI release lazily (building it never spawns), once, from the
 * options' `version` or `<executable> --version` with the agent's variables; each decoder first reports that
 * release's warnings (untested or unknown version) to the turn's diagnostics. Resumable; `v1` of the contract.
 */
export function cliAgent<Features>(definition: CliAgentDefinition<Features>): AgentAdapter {
  const { name, options, features } = definition;
  const executable = options.executable ?? name;
  const variables = Object.freeze({ ...definition.variables });
  const resolve = features === undefined ? undefined : cliReleaseResolver(features, { executable, variables, ...versionOf(options) });
  const agent: CliAgentRuntime<Features> = {
    executable,
    variables,
    release() {
      if (resolve === undefined) throw new Error(`The ${name} agent has no CLI feature table: it cannot tell its release.`);
      return resolve();
    },
  };
  const { forkable, unsupported, transcriptUsage, liveInput, homeFiles } = definition;
  return {
    kind: "cli",
    specificationVersion: "v1",
    name,
    executable,
    ...(definition.cli === undefined ? {} : { bootstrap: name, cli: definition.cli }),
    requiresFinishedEvent: definition.requiresFinishedEvent,
    usage: definition.usage,
    ...(transcriptUsage === undefined ? {} : { transcriptUsage: (text: string) => transcriptUsage(text, agent) }),
    variables,
    resumable: true,
    ...(definition.namesConversations === undefined ? {} : { namesConversations: definition.namesConversations }),
    get forkable() {
      return typeof forkable === "boolean" ? forkable : forkable(agent);
    },
    ...(unsupported === undefined ? {} : { unsupported: (feature: "continuation" | "fork") => unsupported(feature, agent) }),
    storage: definition.storage(agent),
    failureRules: definition.failureRules,
    command: (turn) => definition.command(turn, agent),
    ...(liveInput === undefined ? {} : { liveInput: liveInput(agent) }),
    ...(homeFiles === undefined ? {} : { homeFiles }),
    createDecoder(context?: DecoderContext) {
      if (resolve !== undefined) for (const warning of resolve().warnings) context?.diagnostic?.(warning);
      return definition.decoder(context, agent);
    },
  };
}

function versionOf(options: CliAgentOptions): { version?: string } {
  return options.version === undefined ? {} : { version: options.version };
}
