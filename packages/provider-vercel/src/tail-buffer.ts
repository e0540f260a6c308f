/** Keeps the last `limit` bytes written; decoding trims a UTF-8 sequence cut at the start. */
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

  text(): string {
    let bytes = Buffer.concat(this.chunks, this.size);
    const cut = bytes.length > this.limit;
    if (cut) bytes = bytes.subarray(bytes.length - this.limit);
    let start = 0;
    // Skip UTF-8 continuation bytes left over from a character the cut went through.
    while (cut && start < bytes.length && start < 3 && (bytes[start]! & 0xc0) === 0x80) start += 1;
    return bytes.subarray(start).toString("utf8");
  }
}
