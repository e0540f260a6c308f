/** The 1-based line of the first `"key":` in JSON text (a flat object: top-level keys only), if found. */
export function jsonKeyLine(text: string, key: string): number | undefined {
  const at = new RegExp(`${JSON.stringify(key).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*:`).exec(text)?.index;
  return at === undefined ? undefined : lineAt(text, at);
}

/** The line of a JSON.parse error, from the position V8 names in its message. */
export function jsonErrorLine(text: string, error: Error): number | undefined {
  const line = /line (\d+)/.exec(error.message);
  if (line) return Number(line[1]);
  const position = /position (\d+)/.exec(error.message);
  if (position) return lineAt(text, Number(position[1]));
  return /end of JSON input/.test(error.message) ? lineAt(text, text.length) : undefined;
}

function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}
