import { commitsSince } from "../git/repository.js";
import { workspaceOf, type DispatchState } from "./dispatch-state.js";

/** Stage `collect`: lists the agent's commits (baseline..HEAD of the work branch), now on the host. */
export async function collectStage(state: DispatchState): Promise<void> {
  const workspace = workspaceOf(state);
  state.commits = await commitsSince(workspace.directory, workspace.baseline);
}
