import { LineSplitter } from "@outpost/core";
import type { AgentEvent, AgentLineDecoder } from "@outpost/core";

/** Runs chunks through a line splitter and a decoder, as the harness does with a live stream. */
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
