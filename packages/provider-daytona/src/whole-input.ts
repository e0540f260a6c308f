import { Writable } from "node:stream";

/** What a finite stdin turned out to be: small enough to send whole, or a stream to hand on. */
export type InputShape = { readonly whole: Buffer } | { readonly stream: (stdin: Writable) => Promise<void> };

/**
 * A finite stdin (a transfer's archive), held in memory up to `limit` bytes: when it ends within the limit
 * it travels as one upload before the command starts (one round trip, no frames, no markers); a larger one
 * is handed on as a stream, what was held first. `shape` settles once either is known.
 */
export class WholeInput extends Writable {
  private chunks: Buffer[] = [];
  private size = 0;
  private target: Writable | undefined;
  private settle!: (shape: InputShape) => void;
  private fail!: (error: unknown) => void;
  readonly shape = new Promise<InputShape>((resolve, reject) => ((this.settle = resolve), (this.fail = reject)));

  constructor(private readonly limit: number) {
    super();
    this.shape.catch(() => undefined);
  }

  /** The feed failed before the input was whole: the shape fails with it. */
  failed(error: unknown): void {
    this.fail(error);
    this.target?.destroy(error as Error);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.target !== undefined) return void this.target.write(chunk, callback);
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size <= this.limit) return callback();
    // Too large to hold: the rest streams into the stdin the caller will hand over.
    let ready!: () => void;
    const handed = new Promise<void>((resolve) => (ready = resolve));
    let done!: () => void;
    const ended = new Promise<void>((resolve) => (done = resolve));
    this.once("finish", () => done());
    this.settle({
      stream: async (stdin) => {
        for (const held of this.chunks) stdin.write(held);
        this.chunks = [];
        this.target = stdin;
        ready();
        await ended;
      },
    });
    void handed.then(() => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.target === undefined) this.settle({ whole: Buffer.concat(this.chunks) });
    callback();
  }
}
