import { OutpostError } from "@outpost/core";
import type { Redaction } from "@outpost/dispatch";

// `/source/flags`: a regular expression; anything else is a literal value.
const PATTERN = /^\/(.+)\/([a-z]*)$/s;

/** `--redact` values as the `redact` option: `/regex/flags` are patterns, the others literal values. */
export function redactionOf(flags: readonly string[]): Redaction {
  const patterns: RegExp[] = [];
  const values: string[] = [];
  for (const flag of flags) {
    const match = PATTERN.exec(flag);
    if (!match) {
      if (flag === "") throw new OutpostError("configuration", "--redact needs a value or a /regular expression/.");
      values.push(flag);
      continue;
    }
    try {
      patterns.push(new RegExp(match[1]!, match[2]));
    } catch (error) {
      throw new OutpostError("configuration", `--redact ${flag} is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  return { ...(patterns.length ? { patterns } : {}), ...(values.length ? { values } : {}) };
}
