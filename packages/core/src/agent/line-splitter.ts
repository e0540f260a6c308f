/**
 * Splits a stream of text chunks into complete lines, keeping a partial line until its end arrives.
 * Lines of any length are handed over whole once complete; nothing is dropped.
 */
export class LineSplitter {
  private pending = "";

  /** Returns the lines completed by this chunk (without their `\n` or `\r\n`). */
  push(chunk: string): string[] {
    const text = this.pending + chunk;
    const lines = text.split("\n");
    this.pending = lines.pop() ?? "";
    return lines.map(stripCarriageReturn);
  }

  /** Returns the final unterminated line, if any. */
  flush(): string[] {
    const rest = this.pending;
    this.pending = "";
    return rest.length > 0 ? [stripCarriageReturn(rest)] : [];
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
