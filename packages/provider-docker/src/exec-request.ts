import { normalizeRelativePath, OutpostError, type CommandHomeFile } from "@outpost/core";

/** What COMMAND_WRAPPER is asked to do, sent on the exec's stdin ahead of the command's own stdin. */
export interface ExecRequest {
  readonly directory: string;
  readonly argv: readonly string[];
  /** Exported by the wrapper: the variables of a command run by an exec started without them (a standby). */
  readonly exports?: readonly (readonly [string, string])[];
  /** Written under `home` before the command starts (`Command.homeFiles`). */
  readonly homeFiles?: { readonly home: string; readonly files: readonly CommandHomeFile[] };
}

// Names sh itself gives a meaning that would change the wrapper's own work; they go through the exec's Env.
const SHELL_OWNED = new Set(["IFS", "PPID", "OPTIND", "LINENO", "PS4", "ENV"]);

/**
 * The variables as `export`s for the wrapper, or undefined when a name cannot be exported by sh (not an
 * identifier, or one sh owns): such a command gets an exec of its own with the variables in its Env.
 */
export function shellExports(environment: readonly string[]): (readonly [string, string])[] | undefined {
  const exports: (readonly [string, string])[] = [];
  for (const pair of environment) {
    const at = pair.indexOf("=");
    const name = pair.slice(0, at);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || SHELL_OWNED.has(name)) return undefined;
    exports.push([name, pair.slice(at + 1)]);
  }
  return exports;
}

/** `<length>\n<base64 of the shell lines>`: every value single-quoted, so the wrapper's eval only assigns and calls. */
export function encodeRequest(request: ExecRequest): Buffer {
  const lines = [`_outpost_cd ${quote(request.directory)}`];
  for (const file of request.homeFiles?.files ?? []) {
    const path = homeFilePath(file);
    lines.push(`_outpost_write ${quote(request.homeFiles!.home)} ${quote(path)} ${Buffer.from(file.content, "utf8").toString("base64")}`);
  }
  for (const [name, value] of request.exports ?? []) lines.push(`export ${quote(`${name}=${value}`)}`);
  lines.push(`set -- ${request.argv.map(quote).join(" ")}`);
  const encoded = Buffer.from(`${lines.join("\n")}\n`, "utf8").toString("base64");
  return Buffer.from(`${encoded.length}\n${encoded}`, "latin1");
}

function homeFilePath(file: CommandHomeFile): string {
  const path = normalizeRelativePath(file.path, "home file");
  if (path === "" || typeof file.content !== "string")
    throw new OutpostError(
      "workspace",
      `Refused the home file ${JSON.stringify(file.path)}: give a file path below the home and its content as a string.`,
      { details: { path: file.path } },
    );
  return path;
}

function quote(value: string): string {
  if (value.includes("\0"))
    throw new OutpostError("configuration", `Refused ${JSON.stringify(value.slice(0, 80))}: a command argument cannot contain a NUL byte.`);
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
