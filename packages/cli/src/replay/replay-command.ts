import { OutpostError } from "@outpost/core";
import type { ProgramIo } from "../program.js";
import { reportedDispatch } from "../output/reported-dispatch.js";
import { chooseProvider } from "../run/choose-provider.js";
import { parseBranch } from "../run/run-command.js";
import { journalRoot } from "./journal-folder.js";

/** Options of `outpost replay`, as parsed. */
export interface ReplayFlags {
  readonly divergence: string;
  readonly provider: string;
  readonly branch: string;
  readonly repository?: string;
  readonly from?: string;
  readonly until?: string[];
  readonly json?: boolean;
  readonly verbose?: boolean;
}

/**
 * `outpost replay <reference>`: replays a journal recorded with `outpost run --record` in this repository,
 * with the brief, passes and agent name it was recorded with; no model, key or network is needed.
 */
export async function replayCommand(reference: string, flags: ReplayFlags, io: ProgramIo): Promise<number> {
  return reportedDispatch(flags, io, async ({ reporter, options }) => {
    if (flags.divergence !== "fail" && flags.divergence !== "warn")
      throw new OutpostError("configuration", `--divergence must be fail or warn, got ${JSON.stringify(flags.divergence)}.`);
    const { createReplayAgent, dispatch, findRepository, localJournalTransport, readJournal } = await import("@outpost/dispatch");
    // --from may name any folder holding the storage (a copied checkout needs no git); else the checkout around it.
    const root =
      (flags.from ? journalRoot(flags.from) : undefined) ?? (await findRepository(flags.from ?? flags.repository ?? process.cwd())).root;
    const journal = await readJournal({ transport: localJournalTransport(root), reference, signal: options.signal });
    if (!journal.replayable)
      options.warn(
        `The journal ${journal.reference.key} was recorded without --record: its events replay, but its commits cannot be rebuilt.`,
      );
    const agent = createReplayAgent({ journal, divergence: flags.divergence });
    const first = agent.turns[0];
    if (!first)
      throw new OutpostError(
        "replay",
        `The journal ${journal.reference.key} holds no turn: there is nothing to replay. Record the run again.`,
        {
          details: { key: journal.reference.key },
        },
      );
    const provider = await chooseProvider({ provider: flags.provider, options: {} });
    reporter.start({ agent: `${agent.name} (replay)`, provider: provider.name });
    const result = await dispatch({
      ...options,
      agent,
      sandboxProvider: provider,
      // The brief is the journal's; steering resumptions, fallbacks and repairs replay within their pass.
      passes: Math.max(...agent.turns.map((turn) => turn.pass)),
      ...(flags.until ? { until: flags.until } : {}),
      repository: flags.repository,
      branch: parseBranch(flags.branch),
      logging: false,
    });
    // No continue hint: a replay stores no conversation, and the recorded one is not continued from here.
    return { result, agentOption: undefined };
  });
}
