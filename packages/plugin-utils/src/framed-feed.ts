import type { Writable } from "node:stream";
import type { FramedInput, WrapperStart } from "./framed-input.js";

/** What a runner knows about its process while stdin is fed as frames. */
export interface FeedWatch {
  /** The first feed failure that came while the process still ran. */
  failure: unknown;
  /** Set once the process exited (or the run failed): later feed failures are moot. */
  exited: boolean;
}

/**
 * Feeds a wrapped process's stdin through `pump` (input frames) and closes it when `feed` resolves. Its
 * rule: **a feed failure before the process exited is kept (the first one) and stops the process; one
 * after the exit is ignored**, so a vanished host file fails the command instead of hanging it.
 */
export function startFeed(feed: (stdin: Writable) => Promise<void>, pump: FramedInput, watch: FeedWatch, stop: () => void): void {
  pump.on("error", (error) => {
    if (!watch.exited) watch.failure ??= error;
  });
  feed(pump).then(
    () => void (pump.writableEnded ? undefined : pump.end()),
    (error: unknown) => {
      if (watch.exited) return;
      watch.failure ??= error;
      stop();
    },
  );
}

/**
 * The pid to kill once FRAMED_COMMAND_WRAPPER's header named it. Its rule: the header comes first in the
 * output, so it waits for it (up to `waitMs`); a command whose header never came, or that never started,
 * has no process tree to kill (throws).
 */
export async function startedPid(started: () => WrapperStart | undefined, waitMs = 5_000): Promise<number> {
  for (let waited = 0; started() === undefined && waited < waitMs; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  const start = started();
  if (start === undefined || !("pid" in start)) throw new Error("no pid to kill: the command never started");
  return start.pid;
}
