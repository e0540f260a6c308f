/**
 * How the daemon's `POST /process/execute` turns its `command` string into argv: no shell. A port of
 * `parseCommand` in daytonaio/daytona `apps/daemon/pkg/toolbox/process/execute/execute.go` (earlier
 * `process/execute.go`): only a space splits words (a tab or newline is part of a word); `'` or `"` opens a
 * quote that only the same character closes, the other one being literal inside; there are no escapes; quoted
 * and unquoted parts next to each other make one word; an empty word (`''`) is dropped. `&&`, `|`, `$VAR`,
 * `*` and redirections reach the program as plain words.
 */
export function daemonArgv(command: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (const char of command) {
    if (char === '"' || char === "'") {
      if (quote === undefined) quote = char;
      else if (quote === char) quote = undefined;
      else current += char;
    } else if (char === " " && quote === undefined) {
      if (current.length > 0) words.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  if (current.length > 0) words.push(current);
  return words;
}
