import { LineSplitter, probeCliVersion } from "@outpost/core";
import type { AgentAdapter, AgentEvent, AgentTurn, CommandResult, LearnedCliVersion, SandboxLease } from "@outpost/core";
import { writeHomeFiles } from "./write-home-files.js";

export interface AgentTurnRun {
  readonly events: AgentEvent[];
  readonly result: CommandResult;
  /** Every stdout line, as decoded. */
  readonly lines: string[];
  /** The id from the `conversation` event, if any. */
  readonly conversationId?: string;
  /** What the adapter and its decoder reported through the turn's diagnostic channel. */
  readonly diagnostics: string[];
  /** Events of one type. */
  of<Type extends AgentEvent["type"]>(type: Type): Extract<AgentEvent, { type: Type }>[];
}

export interface AgentTurnInput extends Omit<AgentTurn, "root" | "home"> {
  readonly deadlineMs?: number;
  /** Skip writing the agent's home files (they are already there). */
  readonly skipHomeFiles?: boolean;
  /** Extra variables for this turn, applied last. */
  readonly variables?: Readonly<Record<string, string>>;
}

/**
 * Runs one real agent turn in a lease the way dispatch does: home files, the adapter's command with its
 * variables, stdout streamed through a line splitter into the adapter's decoder.
 */
export async function runAgentTurn(agent: AgentAdapter, lease: SandboxLease, input: AgentTurnInput): Promise<AgentTurnRun> {
  const { deadlineMs, skipHomeFiles, variables, ...turnFields } = input;
  const diagnostics: string[] = [];
  // As the engine does: the CLI release is learned in the lease, its warnings said.
  const cliVersion = turnFields.cliVersion ?? (await learnedVersion(agent, lease, { ...agent.variables, ...variables }));
  if (cliVersion !== undefined) diagnostics.push(...(agent.cliWarnings?.(cliVersion) ?? []));
  const turn: AgentTurn = { ...turnFields, root: lease.root, home: lease.home, ...(cliVersion ? { cliVersion } : {}) };
  if (!skipHomeFiles) await writeHomeFiles(lease, agent.homeFiles?.(turn) ?? []);
  const command = agent.command(turn);
  const decoder = agent.createDecoder({ turn, diagnostic: (message) => diagnostics.push(message) });
  const splitter = new LineSplitter();
  const events: AgentEvent[] = [];
  const lines: string[] = [];
  const take = (batch: string[]) => {
    for (const line of batch) {
      lines.push(line);
      events.push(...decoder.decode(line));
    }
  };
  const result = await lease.invoke({
    executable: command.executable,
    arguments: command.arguments,
    ...(command.stdin === undefined ? {} : { stdin: command.stdin }),
    ...(command.directory === undefined ? {} : { directory: command.directory }),
    variables: { ...agent.variables, ...command.variables, ...variables },
    deadlineMs: deadlineMs ?? 120_000,
    observe: (channel, text) => {
      if (channel === "stdout") take(splitter.push(text));
    },
  });
  take(splitter.flush());
  const conversation = events.find((event) => event.type === "conversation");
  return {
    events,
    result,
    lines,
    diagnostics,
    ...(conversation ? { conversationId: conversation.id } : {}),
    of: <Type extends AgentEvent["type"]>(type: Type) =>
      events.filter((event): event is Extract<AgentEvent, { type: Type }> => event.type === type),
  };
}

async function learnedVersion(
  agent: AgentAdapter,
  lease: SandboxLease,
  variables: Readonly<Record<string, string>>,
): Promise<LearnedCliVersion | undefined> {
  if (agent.cliVersion === undefined) return undefined;
  if (agent.cliVersion.given !== undefined) return { version: agent.cliVersion.given };
  const probe = await probeCliVersion(lease, { executable: agent.executable, variables });
  return probe.version ? { version: probe.version } : { ...(probe.problem ? { problem: probe.problem } : {}) };
}
