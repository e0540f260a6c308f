import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isOutpostError, type Transport } from "@outpost/core";
import { memoryTransport } from "@outpost/testkit";
import { createJournalWriter } from "../src/journal/journal-writer.js";
import { readJournal } from "../src/journal/read-journal.js";
import type { JournalRecord } from "../src/journal/journal-format.js";

const KEY = "a-key-only-the-user-holds";

const records: JournalRecord[] = [
  { kind: "turn-start", pass: 1, prompt: "Create hello.txt", agent: "claude" },
  { kind: "event", pass: 1, atMs: 1, event: { type: "text", text: "working" } },
  { kind: "steer", pass: 1, delivery: "injected", text: "use v2", atMs: 2 },
  { kind: "turn-end", pass: 1, text: "done", usage: {}, settled: false, durationMs: 3 },
  { kind: "turn-start", pass: 1, prompt: "fix the response", agent: "claude", repair: 1 },
  { kind: "turn-end", pass: 1, text: "fixed", usage: {}, settled: false, durationMs: 3 },
];

async function recorded(signingKey?: string): Promise<Transport> {
  const transport = memoryTransport();
  const writer = createJournalWriter({
    transport,
    journalId: "j1",
    agent: "claude",
    source: "agent",
    verbose: false,
    replayable: false,
    segmentRecords: 2,
    ...(signingKey ? { signingKey } : {}),
  });
  for (const record of records) writer.append(record);
  await writer.close("complete");
  return transport;
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const sha256 = (value: string | Uint8Array): string => createHash("sha256").update(value).digest("hex");

/** Rewrites the first segment with `edit`, and its digest in the index (the chain and signature are left as they were). */
async function editFirstSegment(transport: Transport, edit: (segment: string) => string): Promise<void> {
  const index = await transport.read("journals/j1/index.json");
  const parsed = JSON.parse(text(index!.bytes)) as { segments: { key: string; bytes: number; sha256: string }[] };
  const entry = parsed.segments[0]!;
  const segment = await transport.read(entry.key);
  const bytes = new TextEncoder().encode(edit(text(segment!.bytes)));
  await transport.write(entry.key, bytes, { ifRevision: segment!.revision });
  Object.assign(entry, { bytes: bytes.length, sha256: sha256(bytes) });
  await transport.write("journals/j1/index.json", new TextEncoder().encode(JSON.stringify(parsed)), { ifRevision: index!.revision });
}

const refusal = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("tamper-evident journals", () => {
  it("read back whole, with the new inputs (injection, repair), signed and unsigned; the key never reaches the journal", async () => {
    const signed = await recorded(KEY);
    const journal = await readJournal({ transport: signed, reference: "j1", key: KEY });
    expect(journal.records).toEqual(records);
    for await (const entry of signed.list("journals/j1/")) expect(text((await signed.read(entry.key))!.bytes)).not.toContain(KEY);
    expect((await readJournal({ transport: await recorded(), reference: "j1", key: "" })).records).toEqual(records);
  });

  it("with a key: an unsigned journal, another key, or an edit with its segment digest recomputed is refused with code replay", async () => {
    const unsigned = await refusal(readJournal({ transport: await recorded(), reference: "j1", key: KEY }));
    expect(isOutpostError(unsigned, "replay")).toBe(true);
    expect((unsigned as Error).message).toContain("is not signed, but a signing key was given");
    const other = await refusal(readJournal({ transport: await recorded(KEY), reference: "j1", key: "another key" }));
    expect((other as Error).message).toContain("its signature does not match");
    const edited = await recorded(KEY);
    await editFirstSegment(edited, (segment) => segment.replace("working", "idle"));
    const error = await refusal(readJournal({ transport: edited, reference: "j1", key: KEY }));
    expect(isOutpostError(error, "replay")).toBe(true);
    expect((error as Error).message).toMatch(/was altered: its signature does not match/);
  });

  it("without a key, a segment edited with its digest recomputed still breaks the digest chain", async () => {
    const edited = await recorded();
    await editFirstSegment(edited, (segment) => segment.replace("working", "idle"));
    const error = await refusal(readJournal({ transport: edited, reference: "j1", key: "" }));
    expect((error as Error).message).toContain("digest chain");
  });
});
