import { createInterface } from "node:readline";
import { OutpostError } from "@outpost/core";
import type { ProgramIo } from "../program.js";

/**
 * Asks before `--discard` drops work for good: `--yes` answers for the user; on a terminal the question is asked
 * (anything but y/yes declines); without a terminal and without `--yes`, code `configuration`.
 */
export async function confirmDiscard(what: readonly string[], flags: { readonly yes?: boolean }, io: ProgramIo): Promise<boolean> {
  if (what.length === 0 || flags.yes === true) return true;
  if (io.stdin?.isTTY !== true)
    throw new OutpostError(
      "configuration",
      `--discard would drop work for good (${what.join("; ")}). Run it on a terminal to confirm, or pass --yes.`,
      { details: { discard: [...what] } },
    );
  io.stderr.write(`This drops for good:\n${what.map((line) => `  ${line}`).join("\n")}\n`);
  const lines = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    const answer = await new Promise<string>((resolve) => {
      lines.question("Discard it? [y/N] ", resolve);
      lines.once("close", () => resolve(""));
    });
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    lines.close();
  }
}
