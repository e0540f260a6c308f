import type { AgentEvent } from "@outpost/core";
import type { JournalRecord } from "./journal-format.js";

type EventRecord = Extract<JournalRecord, { kind: "event" }>;

/**
 * Keeps one event record under `maxBytes`: the long text fields of an oversized event are cut, with a note
 * saying how much was left out, so a runaway tool output cannot make the journal unreadable.
 */
export function boundEventRecord(record: EventRecord, maxBytes: number): EventRecord {
  const size = Buffer.byteLength(JSON.stringify(record));
  if (size <= maxBytes) return record;
  const keep = Math.max(256, Math.floor(maxBytes / 2));
  const cut = (text: string): string =>
    text.length <= keep
      ? text
      : `${text.slice(0, keep)}… [${Buffer.byteLength(text) - Buffer.byteLength(text.slice(0, keep))} bytes left out of the journal]`;
  const event = record.event;
  const bounded: AgentEvent = (() => {
    switch (event.type) {
      case "text":
      case "prompt":
        return { ...event, text: cut(event.text) };
      case "tool-result":
        return { ...event, output: cut(event.output) };
      case "tool-call":
        return { ...event, input: cut(JSON.stringify(event.input) ?? "") };
      case "raw":
        return { type: "raw", line: cut(event.line) };
      case "failure":
        return { ...event, message: cut(event.message) };
      case "finished":
        return { ...event, ...(event.text !== undefined ? { text: cut(event.text) } : {}) };
      default:
        return event;
    }
  })();
  return { ...record, event: bounded };
}
