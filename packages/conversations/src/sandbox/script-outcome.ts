import type { CommandChannel, CommandResult } from "@outpost/core";

/** What a sandbox script prints before its outcome: `\n<marker><JSON>\n`, the last thing it writes. */
export const SCRIPT_RESULT_MARKER = "@@outpost-script-result@@";

/**
 * Watches a sandbox script's stdout for its outcome line, so the host can go on as soon as the script has
 * printed it: the script only exits after that, and waiting for the exit (the process's end, the platform
 * noticing it, the exit code fetched) costs a round trip that carries nothing. `complete` resolves with the
 * output so far, in the shape of the command's result, once the line is whole.
 */
export class ScriptOutcomeWatch {
  #stdout = "";
  /** Where the latest marker starts, once one came; only new text is searched (an outcome can be megabytes). */
  #markerAt = -1;
  #resolve: ((result: CommandResult) => void) | undefined;
  readonly complete = new Promise<CommandResult>((resolve) => (this.#resolve = resolve));

  readonly observe = (channel: CommandChannel, text: string): void => {
    if (channel !== "stdout" || this.#resolve === undefined) return;
    const fresh = Math.max(0, this.#stdout.length - SCRIPT_RESULT_MARKER.length + 1);
    this.#stdout += text;
    for (let at = this.#stdout.indexOf(SCRIPT_RESULT_MARKER, fresh); at !== -1; at = this.#stdout.indexOf(SCRIPT_RESULT_MARKER, at + 1))
      this.#markerAt = at;
    // JSON.stringify escapes newlines, so the first one after the marker ends the outcome.
    if (this.#markerAt === -1 || !this.#stdout.includes("\n", Math.max(this.#markerAt, fresh))) return;
    this.#resolve({ status: 0, stdout: this.#stdout, stderr: "" });
    this.#resolve = undefined;
    this.#stdout = "";
  };
}
