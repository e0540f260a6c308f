import { posix } from "node:path";
import { Writable } from "node:stream";
import type { Sandbox } from "@vercel/sandbox";

// One frame carries at most this much; a writer waits while this much is queued (backpressure).
const FRAME_BYTES = 8 * 1024 * 1024;

/**
 * A process's stdin for a platform without a stdin channel: what is written here goes to the sandbox as
 * numbered frames (`<n>`, then its empty marker `<n>.ok` in the same archive, so a frame is complete once
 * its marker exists) and `end` after the last; COMMAND_WRAPPER's reader feeds them to the process in
 * order. Writes made in the same tick travel together, so `stdin` plus end costs one request.
 */
export class InputPump extends Writable {
  private queue: Buffer[] = [];
  private queued = 0;
  private frame = 0;
  private shipping: Promise<void> | undefined;
  private waiting: (() => void)[] = [];
  private failure: Error | undefined;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly directory: string,
    private readonly signal: AbortSignal,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.failure) return callback(this.failure);
    this.queue.push(chunk);
    this.queued += chunk.length;
    this.schedule();
    if (this.queued < FRAME_BYTES) return callback();
    this.waiting.push(() => callback(this.failure));
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.failure) return callback(this.failure);
    this.finished = callback;
    this.schedule(true);
  }

  private ending = false;
  private ended = false;
  private finished: ((error?: Error | null) => void) | undefined;

  private schedule(end = false): void {
    if (end) this.ending = true;
    if (this.shipping !== undefined) return;
    this.shipping = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.ship());
  }

  private async ship(): Promise<void> {
    try {
      while (this.queue.length > 0 || this.ending) {
        const data = this.take();
        const files: { path: string; content: Buffer }[] = [];
        if (data.length > 0) {
          files.push({ path: posix.join(this.directory, String(this.frame)), content: data });
          files.push({ path: posix.join(this.directory, `${this.frame}.ok`), content: Buffer.alloc(0) });
          this.frame++;
        }
        const last = this.ending && this.queue.length === 0;
        if (last) files.push({ path: posix.join(this.directory, "end"), content: Buffer.alloc(0) });
        if (files.length > 0) await this.sandbox.writeFiles(files, { signal: this.signal });
        this.release();
        if (last) {
          this.ended = true;
          this.finished?.();
          return;
        }
      }
    } catch (error) {
      this.failure = error as Error;
      this.release();
      this.finished?.(this.failure);
    } finally {
      this.shipping = undefined;
      if (this.failure === undefined && (this.queue.length > 0 || (this.ending && !this.ended))) this.schedule();
    }
  }

  private take(): Buffer {
    const parts: Buffer[] = [];
    let size = 0;
    while (this.queue.length > 0 && size < FRAME_BYTES) {
      const next = this.queue[0]!;
      const room = FRAME_BYTES - size;
      if (next.length <= room) {
        parts.push(next);
        size += next.length;
        this.queue.shift();
      } else {
        parts.push(next.subarray(0, room));
        this.queue[0] = next.subarray(room);
        size += room;
      }
    }
    this.queued -= size;
    return Buffer.concat(parts);
  }

  private release(): void {
    if (this.queued >= FRAME_BYTES && this.failure === undefined) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume();
  }
}
