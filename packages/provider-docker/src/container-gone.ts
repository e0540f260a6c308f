import { OutpostError } from "@outpost/core";
import type Docker from "dockerode";

/**
 * Why a command's container can no longer run it, or undefined when it still runs: a container that
 * stopped, was removed or paused under a command is the sandbox failing (code `provider`), not the agent.
 */
export async function containerGone(container: Docker.Container, what: string): Promise<OutpostError | undefined> {
  const id = container.id.slice(0, 12);
  let state: { Running?: boolean; Paused?: boolean; ExitCode?: number; OOMKilled?: boolean; Error?: string };
  try {
    state = (await container.inspect()).State ?? {};
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) return undefined;
    return new OutpostError(
      "provider",
      `Could not ${what}: the container ${id} was removed while the command ran (docker rm). The work done so far is on the host; dispatch again.`,
      { cause: error, details: { container: container.id } },
    );
  }
  if (state.Paused) {
    return new OutpostError(
      "provider",
      `Could not ${what}: the container ${id} was paused (docker pause) while the command ran. Unpause it (docker unpause ${id}) or dispatch again.`,
      { details: { container: container.id } },
    );
  }
  if (state.Running) return undefined;
  const reason = state.OOMKilled
    ? "it ran out of memory (raise the memory limit)"
    : `exit code ${state.ExitCode ?? "?"}${state.Error ? `: ${state.Error}` : ""}`;
  return new OutpostError(
    "provider",
    `Could not ${what}: the container ${id} stopped while the command ran (${reason}). Check \`docker logs ${id}\` and the engine, then dispatch again.`,
    { details: { container: container.id, exitCode: state.ExitCode, oomKilled: state.OOMKilled === true } },
  );
}
