/**
 * Whether the progress display colours its text: FORCE_COLOR (not `0`/`false`) forces colour even into a
 * pipe, a non-empty NO_COLOR (no-color.org) turns it off, TERM=dumb too; otherwise only on a terminal.
 * Hand-written: node:tty's hasColors() exists only on a terminal stream and so cannot force colour into a pipe,
 * and these four rules do not pay for a dependency in the start of every run.
 */
export function colorEnabled(terminal: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return terminal && env.TERM !== "dumb";
}
