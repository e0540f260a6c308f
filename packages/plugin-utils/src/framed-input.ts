import { posix } from "node:path";
import { Writable } from "node:stream";

/**
 * Runs every command on a platform without a stdin channel: `$1` directory, `$2` input directory (`-`: no
 * stdin), `$3…` the command. Prints a header line on stdout before anything else — `P` + 10-digit pid, `D`
 * when the directory is missing, `X` when the executable is not found. A whole line: a platform that relays
 * output line by line (Daytona's session logs) passes it on at once, so the pid is known before the command
 * prints anything (a deadline can end a silent command). The host writes stdin as numbered frames
 * into the input directory (`<n>`, and its marker `<n>.ok` holding the frame's size and a newline; `end` holds
 * the number of frames and a newline, so it may land before the last marker), and a reader feeds them in
 * order through a FIFO (its name removed once both ends are open). A frame is read once its marker is whole and
 * the frame has that size, so a frame, its marker and `end` may be written in any order, even while the command
 * starts; the reader looks every 5 ms, then 10, then 20 while nothing comes (one `sleep` process a look). Without input the wrapper
 * replaces itself with the command. The input directory
 * outlives the command (it lives in the lease's scratch, gone at release): a frame the host was still
 * writing when the command exited lands there instead of failing as if the platform had refused it.
 */
export const FRAMED_COMMAND_WRAPPER = `cd -- "$1" 2>/dev/null || { echo D; exit 126; }
input=$2
shift 2
command -v -- "$1" >/dev/null 2>&1 || { echo X; exit 127; }
printf 'P%010d\\n' "$$"
[ "$input" = - ] && exec "$@" </dev/null
mkdir -p -- "$input" && { mkfifo -- "$input/fifo" 2>/dev/null || { rm -f -- "$input/fifo" && mkfifo -- "$input/fifo"; }; } || exit 125
(
  # Both ends are open once this runs: the name can go now, beside the command rather than after it.
  rm -f -- "$input/fifo"
  n=0
  nap=0.005
  while :; do
    want=
    if [ -e "$input/$n.ok" ] && [ -e "$input/$n" ] && read -r want <"$input/$n.ok" && [ "$(($(wc -c <"$input/$n")))" = "$want" ]; then
      cat -- "$input/$n" || exit 0
      frame=$input/$n
      n=$((n+1))
      nap=0.005
      # After the last frame the command gets its end of input first, and the clean-up runs beside it.
      [ -e "$input/end" ] && read -r total <"$input/end" && [ "$n" -ge "$total" ] && exec >/dev/null
      rm -f -- "$frame" "$frame.ok"
    elif [ -e "$input/end" ] && read -r total <"$input/end" && [ "$n" -ge "$total" ]; then
      break
    else
      sleep "$nap" 2>/dev/null || sleep 1
      case $nap in 0.005) nap=0.01 ;; *) nap=0.02 ;; esac
    fi
  done
) >"$input/fifo" &
reader=$!
"$@" <"$input/fifo"
status=$?
kill "$reader" 2>/dev/null
exit "$status"`;

/** Header bytes FRAMED_COMMAND_WRAPPER prints on success (the line with its newline). */
export const WRAPPER_HEADER_BYTES = 12;

/** How the wrapper's header ended: a pid, or the reason the command never started. */
export type WrapperStart = { readonly pid: number } | { readonly missing: "directory" | "executable" };

/**
 * Reads the wrapper's header off the front of stdout text and hands the rest on; `start` is known once the
 * header arrived.
 */
export class WrapperHeader {
  private header = "";
  start: WrapperStart | undefined;

  constructor(private readonly onStdout: (text: string) => void) {}

  readonly push = (text: string): void => {
    if (this.start !== undefined) return this.onStdout(text);
    this.header += text;
    if (this.header.startsWith("D")) this.start = { missing: "directory" };
    else if (this.header.startsWith("X")) this.start = { missing: "executable" };
    else if (this.header.length >= WRAPPER_HEADER_BYTES) {
      this.start = { pid: Number(this.header.slice(1, WRAPPER_HEADER_BYTES - 1)) };
      const rest = this.header.slice(WRAPPER_HEADER_BYTES);
      if (rest !== "") this.onStdout(rest);
    }
  };
}

/** One file of a frame batch, relative paths resolved against the input directory. */
export interface InputFrameFile {
  readonly path: string;
  readonly content: Buffer;
  /** A marker (`<n>.ok` or `end`), not data. */
  readonly marker: boolean;
}

export interface FramedInputOptions {
  /**
   * The platform writes a batch's files in the order given (one tar, extracted in order): a frame travels
   * with its marker. Otherwise a batch's files may land in any order, so a frame's marker travels with the
   * next batch (with the next frame, when there is one: one request per frame all the same).
   */
  readonly ordered?: boolean;
}

// One frame carries at most this much; a writer waits while this much is queued (backpressure).
const FRAME_BYTES = 8 * 1024 * 1024;
// A frame that is not full ships once its writer paused this long, or this long after its first byte at
// most: a stream (an archive) goes as a few large frames, each costing a request, while a few bytes of live
// input still go at once and a trickle waits no more than the second bound.
const LINGER_MS = 2;
const LINGER_AT_MOST_MS = 50;

/**
 * A process's stdin for FRAMED_COMMAND_WRAPPER: what is written here goes to the sandbox as numbered frames
 * through `send` (the provider's file API), `end` after the last. A frame ships when it is full, when its
 * writer paused (LINGER_MS) or at the end, so `stdin` plus end costs one batch (two when unordered).
 */
export class FramedInput extends Writable {
  private queue: Buffer[] = [];
  private queued = 0;
  private frame = 0;
  private shipping: Promise<void> | undefined;
  private linger: NodeJS.Timeout | undefined;
  private lingered = false;
  /** When the oldest unsent byte was queued. */
  private since = 0;
  private waiting: (() => void)[] = [];
  private failure: Error | undefined;
  private ending = false;
  private ended = false;
  private finished: ((error?: Error | null) => void) | undefined;
  /** The marker of the frame last sent, when it must wait for the next batch (unordered platforms). */
  private marker: InputFrameFile | undefined;

  constructor(
    private readonly send: (files: readonly InputFrameFile[]) => Promise<void>,
    private readonly directory: string,
    private readonly options: FramedInputOptions = {},
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.failure) return callback(this.failure);
    if (this.queue.length === 0) this.since = performance.now();
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

  /** Data ships now: the frame is full, its writer paused, or the stream ends. */
  private get dataReady(): boolean {
    return this.ending || this.lingered || this.queued >= FRAME_BYTES;
  }

  private schedule(end = false): void {
    if (end) this.ending = true;
    if (this.shipping !== undefined) return this.stopLinger();
    if (this.dataReady || this.marker !== undefined) {
      this.stopLinger();
      this.shipping = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.ship());
    } else if (this.queue.length > 0) {
      // Each write pushes the frame's departure back, never past its bound.
      const due = Math.min(performance.now() + LINGER_MS, this.since + LINGER_AT_MOST_MS);
      if (this.linger !== undefined && due >= this.since + LINGER_AT_MOST_MS) return;
      this.stopLinger();
      this.linger = setTimeout(
        () => {
          this.linger = undefined;
          this.lingered = true;
          this.schedule();
        },
        Math.max(0, due - performance.now()),
      );
    }
  }

  private stopLinger(): void {
    clearTimeout(this.linger);
    this.linger = undefined;
  }

  private async ship(): Promise<void> {
    try {
      for (;;) {
        const files: InputFrameFile[] = [];
        if (this.marker !== undefined) files.push(this.marker);
        this.marker = undefined;
        if (this.dataReady && this.queue.length > 0) {
          const data = this.take();
          files.push({ path: posix.join(this.directory, String(this.frame)), content: data, marker: false });
          const marker = { path: posix.join(this.directory, `${this.frame}.ok`), content: Buffer.from(`${data.length}\n`), marker: true };
          if (this.options.ordered === true) files.push(marker);
          else this.marker = marker;
          this.frame++;
          this.lingered = false;
        }
        const last = this.ending && this.queue.length === 0 && this.marker === undefined;
        if (last) files.push({ path: posix.join(this.directory, "end"), content: Buffer.from(`${this.frame}\n`), marker: true });
        if (files.length === 0) return;
        await this.send(files);
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
      if (this.failure === undefined && !this.ended && (this.queue.length > 0 || this.marker !== undefined || this.ending)) this.schedule();
    }
  }

  /** Up to one frame off the queue; writers held by backpressure go on while it travels. */
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
    if (this.queue.length > 0) this.since = performance.now();
    this.release();
    return Buffer.concat(parts);
  }

  private release(): void {
    if (this.queued >= FRAME_BYTES && this.failure === undefined) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume();
  }
}
