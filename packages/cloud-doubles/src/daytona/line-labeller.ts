/**
 * What the daemon's shell labelers make of a command's output: they read it line by line
 * (`while IFS= read -r line || [ -n "$line" ]; do printf '<marker>%s\n' "$line"; done`; the SDK names them in
 * `@daytonaio/sdk` 0.218 `src/Process.ts`: "3-byte multiplexing markers inserted by the shell labelers").
 * So a line is passed on only once its newline came, `read` drops NUL bytes, and a last line without a
 * newline gets one. Each line it emits is one log entry (its marker is added by the log stream).
 */
export class LineLabeller {
  private partial: Buffer[] = [];

  constructor(private readonly emit: (line: Buffer) => void) {}

  push(bytes: Buffer): void {
    let start = 0;
    for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
      this.partial.push(bytes.subarray(start, newline));
      this.line();
      start = newline + 1;
    }
    if (start < bytes.length) this.partial.push(Buffer.from(bytes.subarray(start)));
  }

  /** The output ended: a last line without its newline is still passed on, with one. */
  end(): void {
    if (this.partial.length > 0) this.line();
  }

  private line(): void {
    const text = Buffer.concat(this.partial);
    this.partial = [];
    const kept = Buffer.from(text.filter((byte) => byte !== 0));
    this.emit(Buffer.concat([kept, Buffer.from("\n")]));
  }
}
