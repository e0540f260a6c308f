import type { AgentDescriptor, AgentFactoryOptions, PluginDescriptor } from "./plugin-descriptor.js";
import type { TransportDescriptor } from "./transport-descriptor.js";

/**
 * A command a plugin adds to a host's command line (e.g. `outpost image build`), described without any
 * command-line library: the host builds the parser, the help and the error handling from it.
 */
export interface PluginCommand {
  /** Words after the program name, e.g. `["image", "build"]`; the first is a group the package.json lists. */
  readonly path: readonly string[];
  readonly description: string;
  readonly arguments?: readonly PluginCommandArgument[];
  readonly options?: readonly PluginCommandOption[];
  /**
   * Does the work; a failure is an `OutpostError`, which the host turns into its message and exit code. May
   * resolve with an exit code of its own (e.g. a watched job's outcome); nothing means success.
   */
  readonly run: (input: PluginCommandInput, host: PluginCommandHost) => Promise<number | void>;
}

export interface PluginCommandArgument {
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
  /** Takes every remaining word. */
  readonly variadic?: boolean;
}

export interface PluginCommandOption {
  /** camelCase long name: `memoryMb` is `--memory-mb`, and `input.options.memoryMb`. */
  readonly name: string;
  /** One letter: `-a`. */
  readonly short?: string;
  /** Placeholder of the value (`name[@version]`); omitted: a switch (boolean). */
  readonly value?: string;
  readonly description: string;
  /** Given more than once: the values come as a list. */
  readonly repeatable?: boolean;
  readonly required?: boolean;
  readonly default?: string;
}

/** What the command line held: arguments in order, options by their camelCase name. */
export interface PluginCommandInput {
  readonly arguments: readonly string[];
  readonly options: Readonly<Record<string, string | boolean | readonly string[] | undefined>>;
}

/** What a host offers a plugin command: its output, and the other installed plugins. */
export interface PluginCommandHost {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** An installed agent's descriptor by what `--agent` takes; a `configuration` error lists the installed ones. */
  readonly agent: (name: string) => Promise<AgentDescriptor>;
  /** An installed transport's descriptor by name (`s3`, `fs`); a `configuration` error lists the installed ones. */
  readonly transport: (name: string) => Promise<TransportDescriptor>;
  /** Every installed agent and provider, loaded. */
  readonly plugins: () => Promise<readonly PluginDescriptor[]>;
  /**
   * An installed agent's options from this host's command line and environment (endpoint, key, executable),
   * in the one shape every agent takes.
   */
  readonly agentOptions: (descriptor: AgentDescriptor) => AgentFactoryOptions;
}
