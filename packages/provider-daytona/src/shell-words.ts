/** One word for a POSIX shell command line: single-quoted, a single quote written as '\''. */
export function shellWord(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `argv` as a shell command line that runs exactly these words (no expansion of any of them). */
export function shellCommand(argv: readonly string[]): string {
  return argv.map(shellWord).join(" ");
}

/** Names a shell owns or treats specially (bash makes some read-only): these go through `env`, never an assignment. */
const SHELL_OWNED =
  /^(IFS|PPID|OPTIND|OPTARG|LINENO|PS4|ENV|UID|EUID|GROUPS|RANDOM|SRANDOM|SECONDS|HISTCMD|FUNCNAME|DIRSTACK|PIPESTATUS|SHELLOPTS|EPOCH\w*|BASH\w*)$/;

/**
 * `exec <command>` with `variables` in its environment: as assignments before `exec` when every name is a
 * plain shell name (no `env` process to start), else through `env`.
 */
export function execWithVariables(variables: Readonly<Record<string, string>>, command: string): string {
  const entries = Object.entries(variables);
  if (entries.every(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !SHELL_OWNED.test(name)))
    return [...entries.map(([name, value]) => `${name}=${shellWord(value)}`), "exec", command].join(" ");
  return ["exec env", ...entries.map(([name, value]) => shellWord(`${name}=${value}`)), command].join(" ");
}
