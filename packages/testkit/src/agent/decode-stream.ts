import { LineSplitter } from "@outpost/core";
import type { AgentEvent, AgentLineDecoder } from "@outpost/core";

/** Runs chunks through core's LineSplitter and a decoder, as the harness does with a live stream. */
export function decodeChunks(decoder: AgentLineDecoder, chunks: Iterable<string>): AgentEvent[] {
  const splitter = new LineSplitter();
  const events: AgentEvent[] = [];
  for (const chunk of chunks) for (const line of splitter.push(chunk)) events.push(...decoder.decode(line));
  for (const line of splitter.flush()) events.push(...decoder.decode(line));
  return events;
}

/** Events other than `raw`, for comparing what a decoder understood. */
export function knownEvents(events: readonly AgentEvent[]): AgentEvent[] {
  return events.filter((event) => event.type !== "raw");
}

/** Splits text into random chunks (mostly up to 64 KiB, some of 1–8 characters) as a pipe would deliver it. */
export function randomChunks(text: string, random: () => number): string[] {
  const chunks: string[] = [];
  let offset = 0;
  while (offset < text.length) {
    const size = random() < 0.05 ? 1 + Math.floor(random() * 8) : 1 + Math.floor(random() * 65_536);
    chunks.push(text.slice(offset, offset + size));
    offset += size;
  }
  return chunks;
}
