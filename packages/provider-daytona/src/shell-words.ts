/** One word for a POSIX shell command line: single-quoted, a single quote written as '\''. */
export function shellWord(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `argv` as a shell command line that runs exactly these words (no expansion of any of them). */
export function shellCommand(argv: readonly string[]): string {
  return argv.map(shellWord).join(" ");
}
