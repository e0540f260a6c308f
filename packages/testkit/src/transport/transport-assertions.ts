import assert from "node:assert/strict";
import { isOutpostError, type OutpostErrorCode, type Transport, type TransportEntry } from "@outpost/core";

const encoder = new TextEncoder();

export function bytesOf(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Awaits `action` and asserts it rejects with an OutpostError of `code`; returns that error. */
export async function expectOutpostError(action: Promise<unknown>, code: OutpostErrorCode, what: string): Promise<Error> {
  let outcome: unknown;
  try {
    await action;
  } catch (error) {
    outcome = error;
  }
  assert.ok(outcome !== undefined, `${what}: expected an OutpostError with code "${code}", but it succeeded`);
  assert.ok(isOutpostError(outcome, code), `${what}: expected an OutpostError with code "${code}", got ${describeError(outcome)}`);
  assert.ok((outcome as Error).message.length > 0, `${what}: the error has no message`);
  return outcome;
}

/** Asserts an entry is well formed and describes `key` with `size` bytes. */
export function expectEntry(entry: TransportEntry, key: string, size: number): void {
  assert.equal(entry.key, key, "entry.key");
  assert.equal(entry.size, size, "entry.size");
  assert.equal(typeof entry.revision, "string", "entry.revision is a string");
  assert.ok(entry.revision.length > 0, "entry.revision is not empty");
  assert.ok(!Number.isNaN(Date.parse(entry.modifiedAt)), `entry.modifiedAt is ISO 8601: ${entry.modifiedAt}`);
}

/** Asserts the stored object under `key` has exactly `bytes` at `revision`. */
export async function expectStored(transport: Transport, key: string, bytes: Uint8Array, revision?: string): Promise<void> {
  const stored = await transport.read(key);
  assert.ok(stored, `read(${key}) found nothing`);
  expectEntry(stored, key, bytes.byteLength);
  assert.deepEqual(Buffer.from(stored.bytes), Buffer.from(bytes), `read(${key}) returned other bytes`);
  if (revision !== undefined) assert.equal(stored.revision, revision, `read(${key}) returned another revision`);
}

export async function collect(entries: AsyncIterable<TransportEntry>): Promise<TransportEntry[]> {
  const all: TransportEntry[] = [];
  for await (const entry of entries) all.push(entry);
  return all;
}

function describeError(value: unknown): string {
  if (isOutpostError(value)) return `OutpostError code "${value.code}": ${value.message}`;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return String(value);
}
