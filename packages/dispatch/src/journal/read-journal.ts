import { createHash } from "node:crypto";
import { OutpostError, type Transport, type TransportReference } from "@outpost/core";
import {
  JOURNAL_INDEX_FORMAT,
  JOURNAL_SEGMENT_FORMAT,
  JOURNAL_VERSION,
  journalIndexKey,
  type JournalIndex,
  type JournalRecord,
  type JournalSegment,
} from "./journal-format.js";
import { DEFAULT_JOURNAL_LIMITS, type JournalLimits } from "./journal-limits.js";
import { checkRecord } from "./check-record.js";
import { chainNext, chainSeed, JOURNAL_KEY_VARIABLE, journalKey, signatureMatches } from "./journal-seal.js";

export interface ReadJournalOptions {
  readonly transport: Transport;
  /** The index key (`journals/<id>/index.json`), a journal id, or a `{ key, revision }` reference. */
  readonly reference: string | TransportReference;
  readonly signal?: AbortSignal;
  readonly limits?: Partial<JournalLimits>;
  /**
   * The key the journal was signed with (HMAC); default the `OUTPOST_JOURNAL_KEY` variable. With a key, an unsigned
   * journal or one whose signature does not match is refused (code `replay`).
   */
  readonly key?: string;
}

/** A journal read back: its index, its records in order, and the reference it was read from. */
export interface Journal extends Omit<JournalIndex, "segments" | "format"> {
  readonly reference: TransportReference;
  readonly records: readonly JournalRecord[];
  /** False when the recording dispatch never finished (a crash): the records end at the last whole segment. */
  readonly complete: boolean;
}

/**
 * Reads a journal back through any transport. Every listed segment must be present and match its digest;
 * otherwise the journal is truncated or damaged and reading fails with code `replay`, naming the segment.
 */
export async function readJournal(options: ReadJournalOptions): Promise<Journal> {
  const limits = { ...DEFAULT_JOURNAL_LIMITS, ...options.limits };
  const { transport, signal } = options;
  const wanted = typeof options.reference === "string" ? { key: keyOf(options.reference) } : options.reference;
  const object = await transport.read(wanted.key, { signal, maxBytes: limits.maxIndexBytes });
  if (!object)
    throw replayError(
      `No journal index at ${wanted.key} in transport ${transport.name}. Check the reference printed when the run was recorded.`,
      wanted.key,
    );
  if ("revision" in wanted && wanted.revision && wanted.revision !== object.revision)
    throw replayError(
      `The journal index ${wanted.key} changed since the reference was taken (revision ${object.revision}, expected ${wanted.revision}). Use the reference of the current revision.`,
      wanted.key,
    );
  const index = parseIndex(object.bytes, wanted.key, limits);
  checkSignature(index, wanted.key, journalKey(options.key));
  const records: JournalRecord[] = [];
  let chain = chainSeed(index.journalId);
  for (const entry of index.segments) {
    const segment = await transport.read(entry.key, { signal, maxBytes: limits.maxSegmentBytes });
    if (!segment)
      throw replayError(
        `The journal ${wanted.key} is truncated: segment ${entry.sequence} (${entry.key}) is missing. Restore it from the transport's history or record the run again.`,
        wanted.key,
      );
    const digest = createHash("sha256").update(segment.bytes).digest("hex");
    if (digest !== entry.sha256 || segment.bytes.length !== entry.bytes)
      throw replayError(
        `The journal ${wanted.key} is damaged: segment ${entry.sequence} (${entry.key}) does not match the digest its index recorded. Record the run again.`,
        wanted.key,
      );
    chain = chainNext(chain, digest);
    if (index.version >= 2 && entry.chain !== chain)
      throw tampered(wanted.key, `segment ${entry.sequence}'s digest chain does not follow from the segments before it`);
    records.push(...parseSegment(segment.bytes, entry.key, index.journalId, entry.sequence));
  }
  if (index.version >= 2 && index.chain !== chain) throw tampered(wanted.key, "the index's digest chain does not end at its last segment");
  const { segments: _segments, format: _format, chain: _chain, signature: _signature, ...header } = index;
  return { ...header, reference: { key: wanted.key, revision: object.revision }, records, complete: index.state !== "recording" };
}

/** With a key, the index must carry a signature made with it over everything else it says. */
function checkSignature(index: JournalIndex, key: string, signingKey: string | undefined): void {
  if (!signingKey) return;
  if (!index.signature)
    throw replayError(
      `The journal ${key} is not signed, but a signing key was given (option key or ${JOURNAL_KEY_VARIABLE}): it cannot be trusted. Record the run again with the key set, or read it without a key.`,
      key,
    );
  const { signature, ...unsigned } = index;
  if (!signatureMatches(JSON.stringify(unsigned), signature, signingKey))
    throw tampered(
      key,
      "its signature does not match its content with the key given (it was edited after it was recorded, or signed with another key)",
    );
}

function tampered(key: string, why: string): OutpostError {
  return replayError(`The journal ${key} was altered: ${why}. Do not replay it; record the run again.`, key, { tampered: true });
}

/** A bare journal id stands for its index key. */
function keyOf(reference: string): string {
  return /^[0-9A-Za-z][0-9A-Za-z_.-]*$/.test(reference) && !reference.endsWith(".json") ? journalIndexKey(reference) : reference;
}

function parseIndex(bytes: Uint8Array, key: string, limits: JournalLimits): JournalIndex {
  const value = parseJson(bytes, key) as Partial<JournalIndex> | undefined;
  if (!value || typeof value !== "object" || value.format !== JOURNAL_INDEX_FORMAT)
    throw replayError(`${key} is not an Outpost journal index. Check the reference.`, key);
  if (typeof value.version !== "number" || !Number.isInteger(value.version))
    throw replayError(`The journal index ${key} has no version. Record the run again.`, key);
  if (value.version > JOURNAL_VERSION)
    throw replayError(
      `The journal ${key} was written by a newer Outpost (index version ${value.version}; this one reads up to version ${JOURNAL_VERSION}). Upgrade @outpost/dispatch to replay it.`,
      key,
      { version: value.version, supported: JOURNAL_VERSION },
    );
  const segments = value.segments;
  if (
    typeof value.journalId !== "string" ||
    typeof value.agent !== "string" ||
    (value.state !== "recording" && value.state !== "complete" && value.state !== "failed") ||
    !Array.isArray(segments) ||
    segments.length > limits.maxSegments ||
    !segments.every(
      (entry, position) =>
        entry &&
        typeof entry.key === "string" &&
        entry.key.startsWith(`journals/${value.journalId}/`) &&
        entry.sequence === position + 1 &&
        typeof entry.sha256 === "string" &&
        typeof entry.bytes === "number",
    )
  )
    throw replayError(`The journal index ${key} is malformed. Record the run again.`, key);
  return value as JournalIndex;
}

function parseSegment(bytes: Uint8Array, key: string, journalId: string, sequence: number): JournalRecord[] {
  const value = parseJson(bytes, key) as Partial<JournalSegment> | undefined;
  if (
    !value ||
    value.format !== JOURNAL_SEGMENT_FORMAT ||
    value.journalId !== journalId ||
    value.sequence !== sequence ||
    !Array.isArray(value.records)
  )
    throw replayError(`The journal segment ${key} is malformed. Record the run again.`, key);
  return value.records.map((record, position) => checkRecord(record, `${key} record ${position + 1}`));
}

function parseJson(bytes: Uint8Array, key: string): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    throw replayError(
      `${key} is not valid JSON (${(error as Error).message}): the journal is truncated or damaged. Record the run again.`,
      key,
    );
  }
}

export function replayError(message: string, key: string, details: Record<string, unknown> = {}): OutpostError {
  return new OutpostError("replay", message, { details: { key, ...details } });
}
