import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { readHostFile } from "../workspace/host-written.js";

/** The repository's variables file for every agent command, under the root of the host checkout. */
export const ENV_FILE = join(".outpost", ".env");
const MAX_ENV_FILE_BYTES = 1024 * 1024;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads `.outpost/.env` of the repository root: `NAME=value` lines, `#` comments, an optional `export `,
 * values bare (an inline ` #` starts a comment), 'literal' or "with \n escapes". Absent: no variables.
 * A link, or a file someone other than the host user could have written, is refused (`configuration`).
 */
export async function readEnvFile(root: string): Promise<Record<string, string>> {
  const path = join(root, ENV_FILE);
  // No link, the host user's alone: a sandbox that could write it would choose the next agent's PATH.
  const bytes = await readHostFile(path, { what: "the variables file of every agent command", maxBytes: MAX_ENV_FILE_BYTES, root });
  return bytes === undefined ? {} : parseEnv(bytes.toString("utf8"), path);
}

/**
 * Parses the text of an env file; a malformed line fails with `configuration` naming its number.
 * Not node:util's parseEnv: measured on Node 20.20, it takes `not a line\nexport B=2` as one variable named
 * "not a line\nexport B", accepts `1BAD=3` and an unterminated quote, and never says so; this file sets the
 * variables (PATH among them) of every agent command, so a typo must be an error, not a silently other value.
 */
export function parseEnv(text: string, path: string): Record<string, string> {
  const variables: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const body = line.startsWith("export ") ? line.slice(7).trimStart() : line;
    const equals = body.indexOf("=");
    const name = equals > 0 ? body.slice(0, equals).trim() : "";
    if (!NAME.test(name)) throw invalid(path, `line ${index + 1} is not NAME=value`);
    const value = parseValue(body.slice(equals + 1).trim());
    if (value === undefined) throw invalid(path, `line ${index + 1} has an unterminated quote`);
    variables[name] = value;
  });
  return variables;
}

function parseValue(value: string): string | undefined {
  const quote = value[0];
  if (quote === "'" || quote === '"') {
    const end = value.indexOf(quote, 1);
    if (quote === "'") return end < 0 ? undefined : value.slice(1, end);
    let result = "";
    for (let index = 1; index < value.length; index += 1) {
      const char = value[index]!;
      if (char === '"') return result;
      if (char === "\\" && index + 1 < value.length) {
        const next = value[++index]!;
        result += next === "n" ? "\n" : next === "t" ? "\t" : next === "r" ? "\r" : next;
      } else result += char;
    }
    return undefined;
  }
  const comment = value.search(/\s#/);
  return (comment >= 0 ? value.slice(0, comment) : value).trim();
}

function invalid(path: string, why: string): OutpostError {
  return new OutpostError("configuration", `Cannot use ${path}: ${why}. Fix or remove the file (NAME=value lines).`, { details: { path } });
}
