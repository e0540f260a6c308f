/** How the command ended, from the wrapper's trailer. */
export interface EncodedEnd {
  readonly status: number;
}

/**
 * Reads ENCODED_OUTPUT_WRAPPER's lines back into bytes. Lines may come twice (a resumed stream replays) or
 * not at all (a dropped stream, or the SDK's demultiplexer dropping bytes): each line carries its offset,
 * so a repeat is skipped and a gap is noticed (`gap`), never delivered out of order. Anything outside the
 * encoding's alphabet is dropped before parsing: the SDK's demultiplexer (`@daytonaio/sdk`
 * `esm/utils/Stream.js`, 0.218) lets stream-marker bytes (0x01, 0x02) through when a WebSocket frame ends
 * right after a marker, and the daemon's line labelling adds newlines; neither can corrupt a line.
 */
export class EncodedOutput {
  private readonly offsets = { o: 0, e: 0 };
  private partial = "";
  /** The trailer, once every byte before it arrived. */
  end: EncodedEnd | undefined;
  /** A line was missing or unreadable: the log must be read again from the start. */
  gap = false;

  constructor(
    private readonly onStdout: (bytes: Buffer) => void,
    private readonly onStderr: (bytes: Buffer) => void,
  ) {}

  /** A piece of the live stream (any cut: lines are completed across pieces). */
  push(text: string): void {
    const lines = (this.partial + clean(text)).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) this.line(line);
  }

  /** The whole log from its start (a re-read after a drop or a gap): what is new is delivered. */
  replay(text: string): void {
    this.partial = "";
    this.gap = false;
    for (const line of clean(text).split("\n")) this.line(line);
  }

  private line(line: string): void {
    if (line === "" || this.end !== undefined) return;
    const trailer = /^s(\d+):(\d+):(\d+)$/.exec(line);
    if (trailer !== null) {
      if (Number(trailer[2]) === this.offsets.o && Number(trailer[3]) === this.offsets.e) this.end = { status: Number(trailer[1]) };
      else this.gap = true;
      return;
    }
    const data = /^([oe])(\d+):((?:[0-9a-f]{2})*)$/.exec(line);
    if (data === null) {
      this.gap = true;
      return;
    }
    const channel = data[1] as "o" | "e";
    const offset = Number(data[2]);
    const bytes = Buffer.from(data[3]!, "hex");
    const seen = this.offsets[channel];
    if (offset > seen) {
      this.gap = true;
      return;
    }
    const fresh = bytes.subarray(seen - offset);
    if (fresh.length === 0) return;
    this.offsets[channel] = offset + bytes.length;
    (channel === "o" ? this.onStdout : this.onStderr)(fresh);
  }
}

/** Only the encoding's alphabet survives: marker bytes leaked by the SDK and carriage returns go. */
function clean(text: string): string {
  return text.replace(/[^0-9a-fose:\n]/g, "");
}
