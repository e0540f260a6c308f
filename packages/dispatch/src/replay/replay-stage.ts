import { ReplayDivergence, type ReplayAgent, type SandboxLease } from "@outpost/core";
import type { DispatchState } from "../stages/dispatch-state.js";
import { checkReplayBaseline } from "./replay-baseline.js";
import { ReplayBuild } from "./replay-build.js";
import { diverge } from "./replay-divergence.js";

const builds = new WeakMap<DispatchState, ReplayBuild>();

/** The scratch build of a replaying dispatch. */
export function replayBuildOf(state: DispatchState): ReplayBuild {
  const build = builds.get(state);
  if (!build) throw new Error("unreachable: a replayed turn runs inside replayTurns()");
  return build;
}

/**
 * The turns of a replay: every recorded commit is rebuilt into a scratch ref and checked while the turns play,
 * and the branch moves once, by fast-forward, after the last turn. Any divergence under `fail` is thrown before
 * that, so the branch and the work tree stay exactly as they were.
 */
export async function replayTurns(state: DispatchState, agent: ReplayAgent, lease: SandboxLease, run: () => Promise<void>): Promise<void> {
  if (agent.remainingTurns === 0 && agent.turns.length > 0)
    throw new ReplayDivergence({
      kind: "exhausted",
      message:
        `This replay agent was already used: its ${agent.turns.length} recorded turn(s) were replayed by an earlier dispatch. ` +
        "A replay agent is single use; create another with createReplayAgent({ journal }).",
    });
  checkReplayBaseline(state, agent, state.workspace!.baseline);
  const build = new ReplayBuild(lease, state.dispatchId);
  builds.set(state, build);
  try {
    await run();
    const refused = await build.finish(true, state.options.signal);
    if (refused)
      diverge(
        agent.divergence,
        {
          kind: "tree",
          message:
            `The replayed commits were rebuilt and verified, but the work tree cannot take them (${refused}); ` +
            "the branch was left where it was. Replay on a clean checkout, or move the files in the way.",
        },
        (divergence) => state.divergences.push(divergence),
        (message) => state.observers.warn(message),
      );
  } finally {
    // After a failure: the scratch ref and private index go; the branch was never moved.
    await build.finish(false).catch(() => undefined);
  }
}
