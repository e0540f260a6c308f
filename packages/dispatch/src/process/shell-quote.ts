/** One shell word: single-quoted, so sh assigns or passes it and never expands anything in it. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}
