/**
 * Rule: keeps the last `limit` bytes of a stream without holding the rest; `text()` drops a UTF-8
 * sequence that the limit cut in two rather than decoding it as garbage. A limit of 0 keeps nothing.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.limit <= 0 || chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  /** The retained tail as text. */
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
