/** Keeps the last `limit` bytes of a stream without holding the rest. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.limit <= 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  /** The retained tail as text; a UTF-8 sequence cut by the limit is dropped rather than garbled. */
  text(): string {
    const all = Buffer.concat(this.chunks, this.size);
    if (all.length <= this.limit) return all.toString("utf8");
    const tail = all.subarray(all.length - this.limit);
    let start = 0;
    // Continuation bytes (10xxxxxx) at the start belong to a character that was cut off.
    while (start < 3 && start < tail.length && (tail[start]! & 0xc0) === 0x80) start++;
    return tail.subarray(start).toString("utf8");
  }
}
