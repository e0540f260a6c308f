/** The end of `text`, at most about `limit` characters, starting at a line's start (never mid-word). */
export function lastLines(text: string, limit: number): string {
  const trimmed = text.trim();
  if (trimmed.length <= limit) return trimmed;
  const tail = trimmed.slice(-limit);
  const lineStart = tail.indexOf("\n");
  // One line longer than the limit: its end, marked as cut.
  return lineStart === -1 ? `…${tail}` : tail.slice(lineStart + 1);
}
