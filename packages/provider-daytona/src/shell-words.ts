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
 * A line for a Daytona session's shell that runs `command` with `variables` in its environment and its stdin
 * on /dev/null. A session command runs *in* the session's shell, so the line must leave that shell as it
 * was: no `exec` (it would replace the shell, and the command would never report an exit code), no `cd` or
 * `export` of its own, and no read of the shell's stdin (the commands queued behind it). Variables are
 * assignments before the command when every name is a plain shell name (scoped to that command, no `env`
 * process to start), else arguments of `env`.
 */
export function sessionLine(variables: Readonly<Record<string, string>>, command: string): string {
  const entries = Object.entries(variables);
  const prefix = entries.every(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !SHELL_OWNED.test(name))
    ? entries.map(([name, value]) => `${name}=${shellWord(value)}`)
    : ["env", ...entries.map(([name, value]) => shellWord(`${name}=${value}`))];
  return [...prefix, command, "</dev/null"].join(" ");
}
