import { createInterface } from "node:readline";
import type { Steering } from "@outpost/dispatch";

/** A terminal's stdin: only a terminal steers (a pipe may hold anything, and is not a person typing). */
export type TerminalInput = NodeJS.ReadableStream & { readonly isTTY?: boolean };

/**
 * Sends each line typed on the terminal as steering while the run lasts; a refused line is a warning
 * (the delivered ones show up in the progress display as steer events). Returns the function that stops reading.
 */
export function steerFromTerminal(input: TerminalInput, steering: Steering, warn: (message: string) => void): () => void {
  const lines = createInterface({ input, terminal: false });
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    steering.send(line).catch((error: unknown) => warn(error instanceof Error ? error.message : String(error)));
  });
  return () => {
    lines.close();
    // Leave the terminal to the shell: a paused stdin no longer keeps the process alive.
    input.pause();
  };
}
