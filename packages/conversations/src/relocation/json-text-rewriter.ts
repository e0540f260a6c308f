/**
 * Rewrites paths inside the JSON string tokens of one line of JSON or JSONL text; every byte outside a
 * rewritten string stays as it was. A raw substitution is exact for JSON (paths only ever occur inside
 * strings and need no escaping), except when a path could be spelled with escapes (`\/`, `\u002f`):
 * such lines are decoded token by token.
 */
export function rewriteJsonLine(line: string, rewrite: (text: string) => string): string {
  if (!line.includes("\\/") && !line.includes("\\u")) return rewrite(line);
  let result = "";
  let last = 0;
  let index = line.indexOf('"');
  while (index !== -1) {
    const end = closingQuote(line, index + 1);
    // An unterminated string (a truncated last line): the rest is rewritten as plain text.
    if (end === -1) return result + line.slice(last, index) + rewrite(line.slice(index));
    const token = line.slice(index, end + 1);
    const replaced = rewriteToken(token, rewrite);
    if (replaced !== token) {
      result += line.slice(last, index) + replaced;
      last = end + 1;
    }
    index = line.indexOf('"', end + 1);
  }
  return result + line.slice(last);
}

function closingQuote(line: string, from: number): number {
  for (let position = from; position < line.length; position += 1) {
    const character = line.charCodeAt(position);
    if (character === 92) position += 1;
    else if (character === 34) return position;
  }
  return -1;
}

function rewriteToken(token: string, rewrite: (text: string) => string): string {
  if (!token.includes("\\")) return rewrite(token);
  let value: unknown;
  try {
    value = JSON.parse(token);
  } catch {
    return rewrite(token);
  }
  if (typeof value !== "string") return token;
  const replaced = rewrite(value);
  return replaced === value ? token : JSON.stringify(replaced);
}
