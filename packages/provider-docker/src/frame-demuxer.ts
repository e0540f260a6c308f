import { Writable } from "node:stream";

/** Docker's multiplexed stream frame: 1 byte stream id, 3 zero bytes, 4 bytes big-endian payload size. */
const HEADER_BYTES = 8;

/** May return a promise to hold the next frame back until the consumer caught up. */
export type FrameSink = (stream: "stdout" | "stderr", chunk: Buffer) => void | Promise<void>;

/**
 * Splits a non-TTY exec stream into stdout and stderr, byte-exact across any chunk boundaries.
 * Written by hand (not `modem.demuxStream`) so a frame split between chunks is never misread.
 */
export class FrameDemuxer extends Writable {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly sink: FrameSink) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.drain().then(() => done(), done);
  }

  /** Output that stops inside a frame was cut (a dropped connection): never pass it off as complete. */
  override _final(done: (error?: Error | null) => void): void {
    if (this.pending.length === 0) return done();
    const expected = this.pending.length >= HEADER_BYTES ? HEADER_BYTES + this.pending.readUInt32BE(4) : HEADER_BYTES;
    done(new Error(`the exec's output stream ended inside a frame (${this.pending.length} of ${expected} bytes)`));
  }

  private async drain(): Promise<void> {
    while (this.pending.length >= HEADER_BYTES) {
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < HEADER_BYTES + size) return;
      const kind = this.pending[0];
      const payload = this.pending.subarray(HEADER_BYTES, HEADER_BYTES + size);
      this.pending = this.pending.subarray(HEADER_BYTES + size);
      // 0 = stdin echo (never requested), 1 = stdout, 2 = stderr.
      const waiting = kind === 1 ? this.sink("stdout", payload) : kind === 2 ? this.sink("stderr", payload) : undefined;
      if (waiting !== undefined) await waiting;
    }
  }
}
