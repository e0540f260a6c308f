import { describe, expect, it } from "vitest";
import { isOutpostError, type Transport } from "@outpost/core";
import { memoryTransport } from "@outpost/testkit";
import { createJournalWriter, type JournalWriterOptions } from "../src/journal/journal-writer.js";
import { readJournal } from "../src/journal/read-journal.js";
import { JOURNAL_VERSION, type JournalRecord } from "../src/journal/journal-format.js";

const SECRET = "sk-ant-journal-secret-0123456789";

function writer(transport: Transport, overrides: Partial<JournalWriterOptions> = {}) {
  return createJournalWriter({
    transport,
    journalId: "j1",
    agent: "claude",
    source: "agent",
    verbose: false,
    replayable: true,
    secrets: [SECRET],
    segmentRecords: 3,
    segmentMs: 60_000,
    ...overrides,
  });
}

const turn: JournalRecord[] = [
  { kind: "turn-start", pass: 1, prompt: "Create hello.txt" },
  { kind: "event", pass: 1, atMs: 1, event: { type: "conversation", id: "c1" } },
  { kind: "event", pass: 1, atMs: 2, event: { type: "raw", line: "{}" } },
  { kind: "event", pass: 1, atMs: 3, event: { type: "text", text: `uses ${SECRET} here` } },
  { kind: "event", pass: 1, atMs: 4, event: { type: "usage", usage: { inputTokens: 3, outputTokens: 4 } } },
  {
    kind: "turn-end",
    pass: 1,
    text: "done",
    usage: { inputTokens: 3, outputTokens: 4 },
    conversationId: "c1",
    settled: false,
    durationMs: 9,
  },
];

async function objects(transport: Transport): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for await (const entry of transport.list("")) found.set(entry.key, new TextDecoder().decode((await transport.read(entry.key))!.bytes));
  return found;
}

describe("journal: immutable segments and a versioned index through any transport", () => {
  it("reads back what was written, in order, with its reference; the compact record drops raw lines", async () => {
    const transport = memoryTransport();
    const journal = writer(transport);
    journal.describe({ baseline: "a".repeat(40) });
    for (const record of turn) journal.append(record);
    const reference = await journal.close("complete");
    expect(reference.key).toBe("journals/j1/index.json");
    const read = await readJournal({ transport, reference });
    expect(read.reference).toEqual(reference);
    expect(read.complete).toBe(true);
    expect(read.baseline).toBe("a".repeat(40));
    expect(read.records.map((record) => record.kind)).toEqual(["turn-start", "event", "event", "event", "turn-end"]);
    expect(read.records.some((record) => record.kind === "event" && record.event.type === "raw")).toBe(false);
    // The id alone and the bare key find the same journal.
    expect((await readJournal({ transport, reference: "j1" })).records).toEqual(read.records);
    expect((await readJournal({ transport, reference: reference.key })).records).toEqual(read.records);
  });

  it("verbose keeps every event, raw lines included", async () => {
    const transport = memoryTransport();
    const journal = writer(transport, { verbose: true });
    for (const record of turn) journal.append(record);
    await journal.close("complete");
    const read = await readJournal({ transport, reference: "j1" });
    expect(read.records).toHaveLength(turn.length);
    expect(read.verbose).toBe(true);
  });

  it("never holds a secret, in any object it wrote", async () => {
    const transport = memoryTransport();
    const journal = writer(transport, { secrets: [SECRET, `quote"and\\backslash-secret`] });
    for (const record of turn) journal.append(record);
    journal.append({ kind: "event", pass: 1, atMs: 5, event: { type: "tool-result", output: `quote"and\\backslash-secret` } });
    await journal.close("complete");
    const stored = await objects(transport);
    expect(stored.size).toBeGreaterThan(1);
    for (const text of stored.values()) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("backslash-secret");
    }
    const read = await readJournal({ transport, reference: "j1" });
    expect(JSON.stringify(read.records)).toContain("[redacted]");
  });

  it("a run killed mid-turn leaves a readable journal up to the last complete segment", async () => {
    const transport = memoryTransport();
    const journal = writer(transport);
    for (const record of turn.slice(0, 4)) journal.append(record);
    await journal.flush();
    // Buffered, never written: the process dies here.
    journal.append({ kind: "event", pass: 1, atMs: 6, event: { type: "text", text: "lost" } });
    const read = await readJournal({ transport, reference: "j1" });
    expect(read.complete).toBe(false);
    expect(read.state).toBe("recording");
    expect(read.records.map((record) => record.kind)).toEqual(["turn-start", "event", "event"]);
  });

  it("a truncated or damaged journal fails with code replay naming the segment", async () => {
    const transport = memoryTransport();
    const journal = writer(transport);
    for (const record of turn) journal.append(record);
    await journal.close("complete");
    const segment = (await readJournal({ transport, reference: "j1" })) && "journals/j1/segment-000002.json";
    const original = (await transport.read(segment))!;
    await transport.write(segment, original.bytes.slice(0, original.bytes.length - 10), { ifRevision: original.revision });
    const damaged = await readJournal({ transport, reference: "j1" }).catch((error: unknown) => error);
    expect(isOutpostError(damaged, "replay")).toBe(true);
    expect((damaged as Error).message).toContain("segment 2");
    const current = (await transport.read(segment))!;
    await transport.remove(segment, { ifRevision: current.revision });
    const truncated = await readJournal({ transport, reference: "j1" }).catch((error: unknown) => error);
    expect(isOutpostError(truncated, "replay")).toBe(true);
    expect((truncated as Error).message).toMatch(/truncated: segment 2 .* is missing/);
  });

  it("a journal from a newer index version is refused with a clear error", async () => {
    const transport = memoryTransport();
    const journal = writer(transport);
    journal.append(turn[0]!);
    await journal.close("complete");
    const index = (await transport.read("journals/j1/index.json"))!;
    const newer = { ...JSON.parse(new TextDecoder().decode(index.bytes)), version: JOURNAL_VERSION + 1 };
    await transport.write("journals/j1/index.json", new TextEncoder().encode(JSON.stringify(newer)), { ifRevision: index.revision });
    const error = await readJournal({ transport, reference: "j1" }).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "replay")).toBe(true);
    expect((error as Error).message).toContain(
      `newer Outpost (index version ${JOURNAL_VERSION + 1}; this one reads up to version ${JOURNAL_VERSION})`,
    );
  });

  it("a reference whose revision was replaced, a missing journal and hostile records are refused", async () => {
    const transport = memoryTransport();
    const journal = writer(transport);
    journal.append(turn[0]!);
    const reference = await journal.close("complete");
    await expect(readJournal({ transport, reference: { key: reference.key, revision: "stale" } })).rejects.toMatchObject({
      code: "replay",
    });
    await expect(readJournal({ transport, reference: "missing" })).rejects.toMatchObject({ code: "replay" });
    const hostile = createJournalWriter({ transport, journalId: "j2", agent: "x", source: "agent", verbose: true, replayable: true });
    hostile.append({ kind: "event", pass: 1, atMs: 0, event: { type: "explode" } as never });
    await hostile.close("complete");
    await expect(readJournal({ transport, reference: "j2" })).rejects.toMatchObject({ code: "replay" });
  });

  it("bounds an oversized event, and cuts segments under the size limit", async () => {
    const transport = memoryTransport();
    const journal = writer(transport, { limits: { maxEventBytes: 4096, maxSegmentBytes: 64 * 1024 }, segmentRecords: 1000 });
    for (let index = 0; index < 40; index += 1)
      journal.append({ kind: "event", pass: 1, atMs: index, event: { type: "tool-result", output: "x".repeat(100_000) } });
    await journal.close("complete");
    const stored = await objects(transport);
    for (const text of stored.values()) expect(text.length).toBeLessThan(64 * 1024);
    const read = await readJournal({ transport, reference: "j1" });
    expect(read.records).toHaveLength(40);
    const first = read.records[0]!;
    expect(first.kind === "event" && first.event.type === "tool-result" && first.event.output).toMatch(/bytes left out of the journal\]$/);
  });
});
