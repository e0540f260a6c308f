import { PassThrough, Writable } from "node:stream";

/** What a finite stdin turned out to be: sent whole in `frame` (its size), or too large, a stream to hand on. */
export type InputShape = { readonly size: number } | { readonly stream: (stdin: Writable) => Promise<void> };

/**
 * A finite stdin (a transfer's archive), sent while it is written: each chunk goes on at once to `frame`, the
 * body of one streamed upload (so the archive travels while the host still packs it), and is held too, up to
 * `limit` bytes. When the input ends within the limit, `frame` ends and `shape` is its size; a larger one
 * destroys `frame` (its upload fails, no marker follows it) and is handed on as a stream, what was held
 * first. `shape` settles once either is known, and fails with the feed.
 */
export class StreamedInput extends Writable {
  readonly frame = new PassThrough();
  private chunks: Buffer[] = [];
  private size = 0;
  private target: Writable | undefined;
  /** The input was larger than one whole upload: `shape` is the stream to hand on. */
  overflowed = false;
  /** Why the feed failed, once it did. */
  feedFailure: unknown;
  private settle!: (shape: InputShape) => void;
  private fail!: (error: unknown) => void;
  readonly shape = new Promise<InputShape>((resolve, reject) => ((this.settle = resolve), (this.fail = reject)));

  constructor(private readonly limit: number) {
    super();
    this.shape.catch(() => undefined);
    // A failed upload destroys the frame: its error is the upload's to report (see runAtEnd).
    this.frame.on("error", () => undefined);
  }

  /** The feed failed before the input was whole: the shape fails with it, and the frame's upload with it. */
  failed(error: unknown): void {
    this.feedFailure = error ?? new Error("the input could not be written");
    this.fail(this.feedFailure);
    this.frame.destroy(error as Error);
    this.target?.destroy(error as Error);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.target !== undefined) return void this.target.write(chunk, callback);
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size <= this.limit) {
      // The frame's callback waits while its reader (the upload) is behind: backpressure onto the feed. A frame
      // destroyed by a failed upload takes no more: the feed then waits until runAtEnd ends it.
      if (this.frame.destroyed) return callback();
      return void this.frame.write(chunk, () => callback());
    }
    // Too large to send whole: the frame's upload fails, and the rest streams into the stdin handed over.
    this.overflowed = true;
    let done!: () => void;
    const ended = new Promise<void>((resolve) => (done = resolve));
    this.once("finish", () => done());
    this.frame.destroy(new Error("the input is larger than one whole upload"));
    this.settle({
      stream: async (stdin) => {
        for (const held of this.chunks) stdin.write(held);
        this.chunks = [];
        this.target = stdin;
        callback();
        await ended;
      },
    });
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.target === undefined && !this.overflowed) {
      this.chunks = [];
      this.frame.end();
      this.settle({ size: this.size });
    }
    callback();
  }
}
