import { createHash } from "node:crypto";
import { OutpostError, type Transport, type TransportReference } from "@outpost/core";
import {
  JOURNAL_INDEX_FORMAT,
  JOURNAL_SEGMENT_FORMAT,
  JOURNAL_VERSION,
  journalIndexKey,
  journalSegmentKey,
  type JournalIndex,
  type JournalRecord,
  type JournalSegmentEntry,
  type JournalState,
} from "./journal-format.js";
import { DEFAULT_JOURNAL_LIMITS, type JournalLimits } from "./journal-limits.js";
import { secretRedactor } from "./redact-secrets.js";
import { boundEventRecord } from "./bound-event.js";
import { chainNext, chainSeed, signIndex } from "./journal-seal.js";

export interface JournalWriterOptions {
  readonly transport: Transport;
  readonly journalId: string;
  readonly agent: string;
  readonly source: "agent" | "harness";
  readonly verbose: boolean;
  readonly replayable: boolean;
  /** Values that must never reach the journal (API keys, tokens): replaced wherever they appear. */
  readonly secrets?: Iterable<string>;
  readonly limits?: Partial<JournalLimits>;
  /** A segment is written once this many records are buffered, default 4,096… */
  readonly segmentRecords?: number;
  /** …or this long after the first buffered record, default 1,000 ms. */
  readonly segmentMs?: number;
  /** Signs the index (HMAC-SHA-256) so that a reader holding the key detects any edit. Never written anywhere. */
  readonly signingKey?: string;
}

/** Appends records to a journal as a dispatch runs; writes are serialized and never block the caller. */
export interface JournalWriter {
  readonly reference: TransportReference | undefined;
  /** Sets what became known after the journal started (the baseline). */
  describe(change: { readonly baseline?: string }): void;
  append(record: JournalRecord): void;
  /** Writes what is buffered as a segment; resolves once it is listed in the index. */
  flush(): Promise<void>;
  /** Flushes and marks the journal finished; resolves its reference (the index key and revision). */
  close(state: Exclude<JournalState, "recording">): Promise<TransportReference>;
}

/**
 * A crash loses at most the segment being written: a segment is written create-only first, and only then
 * listed in the index by a compare-and-swap write, so the index never names a segment that is not whole.
 */
export function createJournalWriter(options: JournalWriterOptions): JournalWriter {
  const limits = { ...DEFAULT_JOURNAL_LIMITS, ...options.limits };
  const segmentRecords = options.segmentRecords ?? 4_096;
  const segmentMs = options.segmentMs ?? 1_000;
  const redact = secretRedactor(options.secrets ?? []);
  const indexKey = journalIndexKey(options.journalId);
  const encoder = new TextEncoder();
  const createdAt = new Date().toISOString();
  let baseline: string | undefined;
  // Each record is serialized once, when it is appended; a segment is these lines joined.
  let buffered: string[] = [];
  const segments: JournalSegmentEntry[] = [];
  let revision: string | null = null;
  let reference: TransportReference | undefined;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  let digests = chainSeed(options.journalId);

  const index = (state: JournalState): JournalIndex => ({
    format: JOURNAL_INDEX_FORMAT,
    version: JOURNAL_VERSION,
    journalId: options.journalId,
    createdAt,
    updatedAt: new Date().toISOString(),
    state,
    agent: options.agent,
    source: options.source,
    ...(baseline ? { baseline } : {}),
    verbose: options.verbose,
    replayable: options.replayable,
    segments,
    chain: digests,
  });

  const writeIndex = async (state: JournalState): Promise<void> => {
    const unsigned = redact(JSON.stringify(index(state)));
    const bytes = encoder.encode(options.signingKey ? signIndex(unsigned, options.signingKey) : unsigned);
    const entry = await options.transport.write(indexKey, bytes, { ifRevision: revision });
    revision = entry.revision;
    reference = { key: indexKey, revision: entry.revision };
  };

  // The same text as JSON.stringify({ format, journalId, sequence, records }), without serializing the records again.
  const writeSegment = async (lines: string[]): Promise<void> => {
    const sequence = segments.length + 1;
    const key = journalSegmentKey(options.journalId, sequence);
    const head = JSON.stringify({ format: JOURNAL_SEGMENT_FORMAT, journalId: options.journalId, sequence }).slice(0, -1);
    const bytes = encoder.encode(redact(`${head},"records":[${lines.join(",")}]}`));
    await options.transport.write(key, bytes, { ifRevision: null });
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    digests = chainNext(digests, sha256);
    segments.push({ key, sequence, records: lines.length, bytes: bytes.length, sha256, chain: digests });
  };

  // Splits the buffer so that no segment grows past the limit (one record always fits: events are bounded,
  // patches are smaller than a segment).
  const cut = (lines: string[]): string[][] => {
    // A UTF-16 unit is at most 3 UTF-8 bytes: most buffers fit whole without counting the bytes of each line.
    let units = 0;
    for (const line of lines) units += line.length + 1;
    if (units * 3 <= limits.maxSegmentBytes - 1024) return lines.length > 0 ? [lines] : [];
    const parts: string[][] = [];
    let part: string[] = [];
    let size = 0;
    for (const line of lines) {
      const bytes = Buffer.byteLength(line) + 1;
      if (part.length > 0 && size + bytes > limits.maxSegmentBytes - 1024) {
        parts.push(part);
        part = [];
        size = 0;
      }
      part.push(line);
      size += bytes;
    }
    if (part.length > 0) parts.push(part);
    return parts;
  };

  const schedule = (work: () => Promise<void>): Promise<void> => {
    const step = chain.then(async () => {
      if (failure !== undefined) return;
      try {
        await work();
      } catch (error) {
        failure = error;
      }
    });
    chain = step;
    return step;
  };

  // Writes what is buffered as segments, then the index once, in `state` (a closing journal is listed complete at once).
  const flushAs = (state: JournalState): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const lines = buffered;
    buffered = [];
    if (lines.length === 0 && reference && state === "recording") return schedule(async () => undefined).then(rethrow);
    return schedule(async () => {
      for (const part of cut(lines)) await writeSegment(part);
      await writeIndex(state);
    }).then(rethrow);
  };
  const flush = (): Promise<void> => flushAs("recording");

  function rethrow(): void {
    if (failure !== undefined) throw journalFailure(failure, indexKey);
  }

  return {
    get reference() {
      return reference;
    },
    describe(change) {
      baseline = change.baseline ?? baseline;
    },
    append(record) {
      if (record.kind === "event" && !options.verbose && record.event.type === "raw") return;
      buffered.push(serialize(record, limits.maxEventBytes));
      // A turn's end is written at once; other records within segmentMs, or when a segment is full.
      if (buffered.length >= segmentRecords || record.kind === "turn-end") void flush().catch(() => undefined);
      else timer ??= setTimeout(() => void flush().catch(() => undefined), segmentMs).unref();
    },
    flush,
    async close(state) {
      await flushAs(state);
      return reference!;
    },
  };
}

/** One record as JSON; an event too large for the journal is cut first (bytes ≤ 3 × UTF-16 units: most need no count). */
function serialize(record: JournalRecord, maxEventBytes: number): string {
  const line = JSON.stringify(record);
  if (record.kind !== "event" || line.length * 3 <= maxEventBytes || Buffer.byteLength(line) <= maxEventBytes) return line;
  return JSON.stringify(boundEventRecord(record, maxEventBytes));
}

function journalFailure(error: unknown, key: string): OutpostError {
  if (OutpostError.isInstance(error) && error.code === "limit") return error;
  return new OutpostError(
    "transport",
    `Could not write the journal ${key}: ${error instanceof Error ? error.message : String(error)}. Check the journal transport, or pass logging: false to run without a journal.`,
    { cause: error, details: { key } },
  );
}
