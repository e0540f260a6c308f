import { OutpostError } from "@outpost/core";

/** Runs a sandbox's operations one at a time: an overlapping one is refused, never queued. */
export interface SerialOperations {
  /** The operation running now, if any. */
  readonly running: string | undefined;
  run<T>(name: string, operation: () => Promise<T>): Promise<T>;
}

/**
 * Why refuse rather than queue: two operations on one lease share the worktree and the agent's home, and a
 * queued dispatch would start from a state its caller never saw. The caller awaits the first and decides.
 */
export function serialOperations(): SerialOperations {
  let running: string | undefined;
  return {
    get running() {
      return running;
    },
    async run<T>(name: string, operation: () => Promise<T>): Promise<T> {
      if (running !== undefined)
        throw new OutpostError(
          "configuration",
          `The sandbox is busy with ${running}; ${name} was refused, since operations on one sandbox run one at a time. ` +
            `Await the ${running} before starting ${name}, or create another sandbox with createSandbox().`,
          { details: { running, refused: name } },
        );
      running = name;
      try {
        return await operation();
      } finally {
        running = undefined;
      }
    },
  };
}
