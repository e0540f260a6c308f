/** One word for a POSIX shell command line: single-quoted, a single quote written as '\''. */
export function shellWord(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
