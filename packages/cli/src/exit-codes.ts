import type { OutpostErrorCode } from "@outpost/core";

/** Process exit codes of the `outpost` command. */
export const EXIT_CODES = Object.freeze({
  success: 0,
  /** The agent ran but the dispatch failed (agent process, provider, workspace…). */
  failure: 1,
  /** Wrong usage or configuration: fix the command line. */
  usage: 2,
  timeout: 3,
  /** The agent's branch could not be merged; its work is kept. */
  conflict: 4,
  /** The turn finished without an end marker. */
  incomplete: 5,
  /** Interrupted (Ctrl-C); SIGHUP and SIGTERM exit with 129 and 143 (128 + the signal's number). */
  aborted: 130,
  /** The output was closed while the run went on (`outpost run --json | head`): 128 + SIGPIPE. */
  outputClosed: 141,
});

/** The exit code for a failure code. */
export function exitCodeFor(code: OutpostErrorCode | undefined): number {
  switch (code) {
    case "configuration":
      return EXIT_CODES.usage;
    case "timeout":
      return EXIT_CODES.timeout;
    case "conflict":
      return EXIT_CODES.conflict;
    case "aborted":
      return EXIT_CODES.aborted;
    default:
      return EXIT_CODES.failure;
  }
}
