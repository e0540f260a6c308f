const ERROR_LINE =
  /\b(error|fatal|panic|unknown (option|argument|flag|command)|unexpected argument|invalid|not found|cannot|can't|failed|denied|refused|unrecognized)\b/i;
/** Lines of a usage/help text (option tables, choice lists), which mention "error" without being one. */
const HELP_LINE = /^(-{1,2}[\w-]|\[|Usage:|Options:|Commands:|Positionals:)|\[(boolean|string|number|array|choices:)|\s{2,}-{1,2}\w/;
const USAGE_TEXT = /^(Usage:|Options:|Positionals:)|^\s+-h, --help\b/m;
// eslint-disable-next-line no-control-regex -- ANSI escape sequences start with the ESC control character.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * The CLI's own error lines in its stderr: the first lines that look like an error, skipping usage/help text
 * (a CLI that rejects an option often prints its whole help after the error line, or only the help). When no
 * line is an error but stderr is a usage text, one line says so. Empty when there is nothing to show.
 */
export function errorLines(stderr: string, limit = 3): string[] {
  // Only the head is searched: a CLI states its error first, and stderr may be megabytes of logs.
  const head = stderr.slice(0, 256 * 1024).replace(ANSI, "");
  const found: string[] = [];
  for (const raw of head.split("\n")) {
    const line = raw.trim();
    if (line === "" || HELP_LINE.test(raw) || HELP_LINE.test(line) || !ERROR_LINE.test(line)) continue;
    found.push(line.length > 300 ? `${line.slice(0, 300)}…` : line);
    if (found.length >= limit) break;
  }
  if (found.length === 0 && USAGE_TEXT.test(head)) {
    const first =
      head
        .split("\n")
        .find((line) => line.trim() !== "")
        ?.trim() ?? "";
    found.push(`printed only its usage text (\`${first.slice(0, 120)}\`): it does not accept an option or argument it was given`);
  }
  return found;
}
