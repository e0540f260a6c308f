import { cliRelease, OutpostError, parseCliVersion } from "@outpost/core";
import type {
  AgentAdapter,
  AgentCommand,
  AgentHomeFile,
  AgentLineDecoder,
  AgentLiveInput,
  AgentTurn,
  LearnedCliVersion,
} from "@outpost/core";
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
  /** The CLI release that runs, when known without asking it. Omitted: `<executable> --version` in each lease. */
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
  /**
   * The CLI release: the options' `version`, else the one `learned` in the lease (a turn's `cliVersion`),
   * else unknown (the table's safe choices). Never spawns. Only with a feature table.
   */
  release(learned?: LearnedCliVersion): CliRelease<Features>;
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
  /** A fixed answer, or read from the release (asked only when a fork is considered; undefined until known). */
  readonly forkable: boolean | ((agent: CliAgentRuntime<Features>) => boolean);
  /** The store used (the options' `storage`, or the agent's default). */
  storage(agent: CliAgentRuntime<Features>): ConversationStore;
  readonly failureRules: readonly FailureRule[];
  command(turn: AgentTurn, agent: CliAgentRuntime<Features>): AgentCommand;
  decoder(context: DecoderContext | undefined, agent: CliAgentRuntime<Features>): AgentLineDecoder;
  /** `learned`: the version learned in the lease (pass it to `agent.release`). */
  unsupported?(feature: "continuation" | "fork", agent: CliAgentRuntime<Features>, learned?: LearnedCliVersion): string | undefined;
  transcriptUsage?(text: string, agent: CliAgentRuntime<Features>): Usage | undefined;
  liveInput?(agent: CliAgentRuntime<Features>): AgentLiveInput;
  homeFiles?(turn: AgentTurn): readonly AgentHomeFile[];
}

/**
 * Rule: a CLI agent's adapter never spawns: the engine learns its CLI release in each lease (`cliVersion`)
 * unless the options' `version` names it, and hands it to each turn. With the version unknown, the feature
 * table's safe choices apply, and `cliWarnings` says so. Resumable; `v1` of the contract.
 */
export function cliAgent<Features>(definition: CliAgentDefinition<Features>): AgentAdapter {
  const { name, options, features } = definition;
  const executable = options.executable ?? name;
  const variables = Object.freeze({ ...definition.variables });
  const given = givenVersion(name, options.version);
  const agent: CliAgentRuntime<Features> = {
    executable,
    variables,
    release(learned) {
      if (features === undefined) throw new Error(`The ${name} agent has no CLI feature table: it cannot tell its release.`);
      if (given !== undefined) return cliRelease(features, given);
      return cliRelease(features, learned?.version, learned?.problem ?? "it was not learned in the sandbox");
    },
  };
  const { forkable, unsupported, transcriptUsage, liveInput, homeFiles } = definition;
  return {
    kind: "cli",
    specificationVersion: "v1",
    name,
    executable,
    ...(features === undefined ? {} : { cliVersion: given === undefined ? {} : { given } }),
    ...(features === undefined ? {} : { cliWarnings: (learned: LearnedCliVersion) => agent.release(learned).warnings }),
    ...(definition.cli === undefined ? {} : { bootstrap: name, cli: definition.cli }),
    requiresFinishedEvent: definition.requiresFinishedEvent,
    usage: definition.usage,
    ...(transcriptUsage === undefined ? {} : { transcriptUsage: (text: string) => transcriptUsage(text, agent) }),
    variables,
    resumable: true,
    ...(definition.namesConversations === undefined ? {} : { namesConversations: definition.namesConversations }),
    // Before a lease exists only a given version can answer; otherwise the engine asks `unsupported` in the lease.
    get forkable() {
      if (typeof forkable === "boolean") return forkable;
      return given === undefined ? undefined : forkable(agent);
    },
    ...(unsupported === undefined
      ? {}
      : { unsupported: (feature: "continuation" | "fork", learned?: LearnedCliVersion) => unsupported(feature, agent, learned) }),
    storage: definition.storage(agent),
    failureRules: definition.failureRules,
    command: (turn) => definition.command(turn, agent),
    ...(liveInput === undefined ? {} : { liveInput: liveInput(agent) }),
    ...(homeFiles === undefined ? {} : { homeFiles }),
    createDecoder: (context?: DecoderContext) => definition.decoder(context, agent),
  };
}

// A version given wrong is refused while the agent is built, not guessed at.
function givenVersion(name: string, version: string | undefined): string | undefined {
  if (version === undefined) return undefined;
  const parsed = parseCliVersion(version);
  if (parsed === undefined || parsed !== version.trim())
    throw new OutpostError(
      "configuration",
      `The ${name} CLI version ${JSON.stringify(version)} is not major.minor.patch. Pass the version \`${name} --version\` prints, e.g. --agent-version 1.2.3.`,
      { details: { agent: name, version } },
    );
  return parsed;
}
