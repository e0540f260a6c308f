import { OutpostError } from "@outpost/core";
import { commitsSince } from "../git/repository.js";
import { assertCommitsLeaveOutpostAlone } from "../workspace/host-read-commits.js";
import { withinLimit } from "./stage-limit.js";
import { recordCommits } from "../journal/record-commits.js";
import { workspaceOf, type DispatchState } from "./dispatch-state.js";

/**
 * Stage `collect`: lists the agent's commits (baseline..HEAD of the work branch), now on the host; a
 * replayable journal records each of them, verified, with the last pass.
 */
export async function collectStage(state: DispatchState): Promise<void> {
  const workspace = workspaceOf(state);
  const journal = state.journal;
  await withinLimit(state, "collectMs", (signal) => assertCommitsLeaveOutpostAlone(workspace, signal));
  if (!journal?.replayable || state.options.agent.kind === "replay") {
    state.commits = await withinLimit(state, "collectMs", (signal) => commitsSince(workspace.directory, workspace.baseline, signal));
    return;
  }
  // Listed and recorded in one process: a replayable journal costs one process, not two.
  const recorded = await withinLimit(state, "collectMs", (signal) =>
    recordCommits(workspace.directory, { since: workspace.baseline }, journal.maxPatchBytes, signal),
  );
  state.commits = recorded.map((commit) => commit.id);
  const pass = state.turns[state.turns.length - 1]?.pass ?? 1;
  for (const commit of recorded) {
    // A credential in a commit would be redacted from the journal, and the commit could not be rebuilt.
    if (journal.redact(JSON.stringify(commit)) !== JSON.stringify(commit))
      throw new OutpostError(
        "replay",
        `Commit ${commit.id} contains the value of a credential variable, which a journal never holds; ` +
          `it cannot be recorded for replay. Remove the credential from the commit, or record without replayable.`,
        { details: { commit: commit.id } },
      );
    journal.append({ kind: "commit", pass, commit });
  }
}
