import { OutpostError } from "@outpost/core";

/**
 * `argv` as a `/process/execute` line (`executeCommand`). The daemon runs no shell there: it splits the line
 * itself (`parseCommand` in daytonaio/daytona `apps/daemon/pkg/toolbox/process/execute/execute.go`): a space
 * splits, `'` or `"` quote until the same character, with no escapes, and adjacent parts join. So each word
 * is its runs without `'` in single quotes and its runs of `'` in double quotes (a shell's `'\''` would keep
 * the backslash). An empty word cannot be written: the daemon drops it.
 */
export function daemonCommand(argv: readonly string[]): string {
  return argv.map(daemonWord).join(" ");
}

function daemonWord(word: string): string {
  if (word === "")
    throw new OutpostError("configuration", "An empty argument cannot be passed through Daytona's /process/execute (the daemon drops it).");
  return word.replace(/'+|[^']+/g, (run) => (run.startsWith("'") ? `"${run}"` : `'${run}'`));
}
