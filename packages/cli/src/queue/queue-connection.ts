import { OutpostError } from "@outpost/core";
import type { ProgramIo } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";

/** Flags every queue command takes. */
export interface QueueFlags {
  /** Default OUTPOST_REDIS_URL, else redis://127.0.0.1:6379. */
  readonly redis?: string;
  /** Default OUTPOST_QUEUE, else the package's default queue name. */
  readonly queue?: string;
  readonly json?: boolean;
}

export function redisUrl(flags: QueueFlags): string {
  return flags.redis ?? process.env.OUTPOST_REDIS_URL ?? "redis://127.0.0.1:6379";
}

export function queueName(flags: QueueFlags): string | undefined {
  return flags.queue ?? process.env.OUTPOST_QUEUE;
}

/** Runs a queue command: an OutpostError becomes its exit code and a message (or a JSON error line). */
export async function guardedQueueCommand(flags: QueueFlags, io: ProgramIo, work: () => Promise<number | void>): Promise<number> {
  try {
    return (await work()) ?? EXIT_CODES.success;
  } catch (caught) {
    const error = OutpostError.isInstance(caught)
      ? caught
      : new OutpostError(
          "process",
          `Queue command failed: ${caught instanceof Error ? caught.message : String(caught)}. Check that Redis answers at ${redisUrl(flags).replace(/\/\/([^/@]*):[^/@]*@/, "//$1:***@")}.`,
          { cause: caught },
        );
    if (flags.json)
      io.stdout.write(`${JSON.stringify({ type: "error", code: error.code, message: error.message, details: error.details })}\n`);
    else io.stderr.write(`outpost: ${error.code}: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
}
