import assert from "node:assert/strict";
import type { AgentEvent, AgentLineDecoder } from "@outpost/core";

/** Decodes one line, turning a throw into an assertion failure that names the line. */
export function decodeOrFail(decoder: AgentLineDecoder, line: string, what: string): AgentEvent[] {
  try {
    const events = decoder.decode(line);
    assert.ok(Array.isArray(events), `${what}: decode() returned ${typeof events}, not an array, for ${preview(line)}`);
    return events;
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    assert.fail(`${what}: decode() threw ${String(error)} on ${preview(line)}`);
  }
}

/** Asserts `events` is exactly one `raw` event carrying `line` whole. */
export function expectKeptAsRaw(events: readonly AgentEvent[], line: string, what: string): void {
  assert.equal(
    events.length,
    1,
    `${what}: expected one raw event for ${preview(line)}, got [${events.map((event) => event.type).join(", ")}]`,
  );
  const [event] = events;
  assert.equal(event?.type, "raw", `${what}: expected a raw event for ${preview(line)}, got ${event?.type}`);
  // Length first: a failing comparison of multi-megabyte strings would print all of them.
  assert.equal(event.type === "raw" ? event.line.length : -1, line.length, `${what}: the raw event does not carry ${preview(line)} whole`);
  assert.ok(event.type === "raw" && event.line === line, `${what}: the raw event carries another line than ${preview(line)}`);
}

/** Events of every recorded line through one fresh decoder: the reference the hostile runs must reproduce. */
export function referenceEvents(decoder: AgentLineDecoder, recorded: readonly string[]): AgentEvent[][] {
  return recorded.map((line, index) => decodeOrFail(decoder, line, `recorded line ${index + 1}`));
}

export function preview(line: string): string {
  const shown = line.length > 60 ? `${line.slice(0, 60)}… (${line.length} characters)` : line;
  return JSON.stringify(shown);
}
