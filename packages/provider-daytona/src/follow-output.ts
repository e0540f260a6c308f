import { OutpostError } from "@outpost/core";
import type { Sandbox } from "@daytonaio/sdk";
import type { OperationGuard } from "@outpost/plugin-utils";
import type { EncodedEnd, EncodedOutput } from "./encoded-output.js";
import { withRetry } from "./with-retry.js";

/** Drops of the log stream in a row without new output before the command is given up as unreachable. */
const DROPS_WITHOUT_PROGRESS = 6;

export interface FollowedCommand {
  readonly sandbox: Sandbox;
  readonly session: string;
  readonly cmdId: string;
  readonly output: EncodedOutput;
  readonly guard: OperationGuard;
  readonly what: string;
  /** Bytes delivered so far (progress between drops). */
  delivered(): number;
}

/**
 * Follows a session command's output to its trailer. `getSessionCommandLogs` resolves on any close of its
 * WebSocket (`@daytonaio/sdk` `esm/Process.js`), a dropped connection too, so a close before the trailer is
 * not the end: the whole log is read again over HTTP (what is new is delivered), and the stream is opened
 * again while the command runs. A gap in the stream (bytes the SDK's demultiplexer dropped) is filled the
 * same way. A command that ended without a trailer, or a stream that keeps dropping without progress, fails
 * with `provider`: partial output is never returned as complete.
 */
export async function followOutput(command: FollowedCommand): Promise<EncodedEnd> {
  const { sandbox, session, cmdId, output, guard, what } = command;
  let filling: Promise<void> | undefined;
  const fill = async () => {
    const log = await withRetry(() => sandbox.process.getSessionCommandLogs(session, cmdId), what, guard.signal);
    // The encoded lines are all on stdout; a daemon that only fills the combined `output` has them there.
    output.replay(log.stdout || log.output || "");
  };
  const push = (text: string) => {
    output.push(text);
    if (output.gap && filling === undefined) {
      filling = fill()
        .catch(() => undefined)
        .finally(() => (filling = undefined));
    }
  };
  for (let drops = 0; ;) {
    const before = command.delivered();
    let dropped: unknown;
    await sandbox.process.getSessionCommandLogs(session, cmdId, push, push).catch((error: unknown) => (dropped = error));
    await filling;
    if (output.end !== undefined) return output.end;
    guard.check();
    if ((dropped as { statusCode?: number } | undefined)?.statusCode === 404) throw dropped;
    await fill();
    if (output.end !== undefined) return output.end;
    const state = await withRetry(() => sandbox.process.getSessionCommand(session, cmdId), what, guard.signal);
    if (typeof state.exitCode === "number") {
      await fill();
      if (output.end !== undefined) return output.end;
      throw incomplete(what, `the command ended (exit code ${state.exitCode}) without the rest of its output`);
    }
    drops = command.delivered() > before ? 0 : drops + 1;
    if (drops >= DROPS_WITHOUT_PROGRESS) throw incomplete(what, `its log stream dropped ${drops} times in a row without new output`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** drops, 2_000)));
    guard.check();
  }
}

function incomplete(what: string, reason: string): OutpostError {
  return new OutpostError(
    "provider",
    `Could not ${what}: ${reason}, so its output is incomplete. Check the network to the Daytona toolbox and run the command again.`,
    { details: { incomplete: true } },
  );
}
