import { assertSpecificationVersion, OutpostError, type Transport, type TransportReference } from "@outpost/core";
import type { JournalRecord, JournalState } from "./journal-format.js";
import { createJournalWriter } from "./journal-writer.js";
import { DEFAULT_JOURNAL_LIMITS } from "./journal-limits.js";
import { localJournalTransport } from "./local-transport.js";
import { secretRedactor } from "./redact-secrets.js";
import { journalKey } from "./journal-seal.js";
import type { Redactor } from "../redact/redactor.js";

/** The `logging` option of dispatch: a journal (default, local), none, or JSON lines on stdout. */
export type Logging =
  | false
  | "stdout"
  | {
      /** Where the journal goes; default a local transport under `.outpost/storage`. */
      readonly transport?: Transport;
      /** Keep every normalized event, raw lines included; default false (the compact record). */
      readonly verbose?: boolean;
      /** Record each commit the agent made with a verified binary patch, so a replay rebuilds it; default false. */
      readonly replayable?: boolean;
      /** Largest patch of one recorded commit, default 16 MiB; a larger commit fails with code `limit`. */
      readonly maxPatchBytes?: number;
      /** Signs the journal (HMAC-SHA-256); default the `OUTPOST_JOURNAL_KEY` variable. Readers given the key refuse any edit. */
      readonly signingKey?: string;
    };

/** Where a dispatch's records go while it runs. */
export interface JournalSink {
  readonly replayable: boolean;
  readonly maxPatchBytes: number;
  /** Removes credentials from a text before it is checked for recording (commits must not hold any). */
  readonly redact: (json: string) => string;
  describe(change: { readonly baseline?: string }): void;
  append(record: JournalRecord): void;
  /** Resolves the journal's reference; undefined for stdout. */
  close(state: Exclude<JournalState, "recording">): Promise<TransportReference | undefined>;
}

// Variables whose names say they carry a credential; their values never reach a journal.
// Matched on whole `_`-separated words: GIT_AUTHOR_NAME is no credential, ANTHROPIC_API_KEY is.
const SECRET_NAME = /(^|_)(KEY|APIKEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH|AUTHORIZATION|COOKIE)(_|$)/i;

/** The values of the credential-like variables among `variables`. */
export function secretValues(variables: Readonly<Record<string, string>>): string[] {
  return Object.entries(variables)
    .filter(([name]) => SECRET_NAME.test(name))
    .map(([, value]) => value);
}

/** Checks the option before anything is allocated (code `configuration`). */
export function checkLogging(logging: unknown): void {
  if (logging === undefined || logging === false || logging === "stdout") return;
  const value = logging as Record<string, unknown> | null;
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new OutpostError(
      "configuration",
      `logging must be false, "stdout" or { transport, verbose, replayable }, got ${JSON.stringify(logging)}.`,
    );
  if (value.transport !== undefined) assertSpecificationVersion(value.transport, "transport");
  for (const flag of ["verbose", "replayable"] as const)
    if (value[flag] !== undefined && typeof value[flag] !== "boolean")
      throw new OutpostError("configuration", `logging.${flag} must be a boolean, got ${JSON.stringify(value[flag])}.`);
  if (value.signingKey !== undefined && (typeof value.signingKey !== "string" || value.signingKey === ""))
    throw new OutpostError("configuration", "logging.signingKey must be a non-empty string (or leave it out to use OUTPOST_JOURNAL_KEY).");
  const limit = value.maxPatchBytes;
  if (
    limit !== undefined &&
    !(typeof limit === "number" && Number.isSafeInteger(limit) && limit > 0 && limit <= DEFAULT_JOURNAL_LIMITS.maxSegmentBytes / 2)
  )
    throw new OutpostError(
      "configuration",
      `logging.maxPatchBytes must be a positive integer up to ${DEFAULT_JOURNAL_LIMITS.maxSegmentBytes / 2}, got ${JSON.stringify(limit)}.`,
    );
}

export interface OpenJournalOptions {
  readonly logging: Logging | undefined;
  readonly root: string;
  readonly journalId: string;
  readonly agent: string;
  readonly source: "agent" | "harness";
  readonly secrets: readonly string[];
  /** The `redact` option: every record's strings pass through it before they are serialized. */
  readonly redactor?: Redactor;
  readonly write?: (line: string) => void;
}

/** Opens where the dispatch's records go; undefined with `logging: false`. */
export function openJournal(options: OpenJournalOptions): JournalSink | undefined {
  const { logging } = options;
  if (logging === false) return undefined;
  const secrets = [...options.secrets, ...(options.redactor?.values ?? [])];
  // Values first, then patterns over the JSON text: what `redact` answers for a commit says whether any would change.
  const literal = secretRedactor(secrets);
  const redactor = options.redactor;
  const redact = redactor ? (json: string) => redactor.text(literal(json)) : literal;
  const redactRecord = (record: JournalRecord): JournalRecord => (redactor ? redactor.value(record) : record);
  if (logging === "stdout") {
    const write = options.write ?? ((line: string) => void process.stdout.write(line));
    return {
      replayable: false,
      maxPatchBytes: DEFAULT_JOURNAL_LIMITS.maxPatchBytes,
      redact,
      describe: () => undefined,
      append: (record) => write(`${literal(JSON.stringify({ journalId: options.journalId, ...redactRecord(record) }))}\n`),
      close: async () => undefined,
    };
  }
  const settings = logging ?? {};
  const maxPatchBytes = settings.maxPatchBytes ?? DEFAULT_JOURNAL_LIMITS.maxPatchBytes;
  const signingKey = journalKey(settings.signingKey);
  const writer = createJournalWriter({
    ...(signingKey ? { signingKey } : {}),
    transport: settings.transport ?? localJournalTransport(options.root),
    journalId: options.journalId,
    agent: options.agent,
    source: options.source,
    verbose: settings.verbose === true,
    replayable: settings.replayable === true,
    // The key never reaches the journal, even where an agent printed it.
    secrets: signingKey ? [...secrets, signingKey] : secrets,
    limits: { maxPatchBytes },
  });
  // A dispatch that failed before its first turn leaves nothing behind, no journal either.
  let appended = false;
  return {
    replayable: settings.replayable === true,
    maxPatchBytes,
    redact,
    describe: (change) => writer.describe(change),
    append: (record) => {
      appended = true;
      writer.append(redactRecord(record));
    },
    close: async (state) => (appended || state === "complete" ? writer.close(state) : undefined),
  };
}
