import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** The variable a signing key is read from when none is passed: the recording and the replaying process share it. */
export const JOURNAL_KEY_VARIABLE = "OUTPOST_JOURNAL_KEY";

/** How an index is signed: HMAC-SHA-256 over its text without the signature. */
export interface JournalSignature {
  readonly algorithm: "hmac-sha256";
  readonly value: string;
}

/** The chain's start: bound to the journal's id, so segments cannot be moved between journals. */
export function chainSeed(journalId: string): string {
  return sha256(`outpost-journal-chain\n${journalId}`);
}

/** The chain after one more segment: every record is covered, through its segment's digest, in order. */
export function chainNext(previous: string, segmentSha256: string): string {
  return sha256(`${previous}\n${segmentSha256}`);
}

/** The key given, else the one in the environment; an empty value is no key. */
export function journalKey(given: string | undefined): string | undefined {
  const key = given ?? process.env[JOURNAL_KEY_VARIABLE];
  return key ? key : undefined;
}

/** The index text with its signature appended as the last field. */
export function signIndex(unsigned: string, key: string): string {
  const signature: JournalSignature = { algorithm: "hmac-sha256", value: hmac(unsigned, key) };
  return `${unsigned.slice(0, -1)},"signature":${JSON.stringify(signature)}}`;
}

/** Whether `signature` signs `unsigned` (the index re-serialized without it) with `key`. */
export function signatureMatches(unsigned: string, signature: unknown, key: string): boolean {
  const value = (signature as Partial<JournalSignature> | undefined)?.value;
  if ((signature as Partial<JournalSignature> | undefined)?.algorithm !== "hmac-sha256" || typeof value !== "string") return false;
  const expected = Buffer.from(hmac(unsigned, key), "hex");
  const found = Buffer.from(value, "hex");
  return found.length === expected.length && timingSafeEqual(found, expected);
}

function hmac(text: string, key: string): string {
  return createHmac("sha256", key).update(text).digest("hex");
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
