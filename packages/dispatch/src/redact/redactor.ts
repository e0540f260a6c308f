import { REDACTED } from "../journal/redact-secrets.js";
import type { Redaction } from "./redact-options.js";

// Credential values this short are too likely to appear by chance (a "1", a "true") to be worth hiding.
const MINIMUM_CREDENTIAL_LENGTH = 8;

/** Removes the user's patterns and values, and the agent's credentials, from what Outpost stores or emits. */
export interface Redactor {
  /** True when there is nothing to redact (every method is then the identity). */
  readonly empty: boolean;
  /** The literal values, longest first (the journal also matches them in their JSON-escaped form). */
  readonly values: readonly string[];
  /** Whether captured native conversations are redacted too. */
  readonly conversations: boolean;
  text(text: string): string;
  /** Every string inside plain objects and arrays; other objects (bytes, dates) are kept as they are. */
  value<T>(value: T): T;
  /** Adds credential values found later (the agent's variables are known once the options are resolved). */
  addCredentials(values: Iterable<string>): void;
}

/** Builds the dispatch's redactor from the `redact` option (already checked). */
export function createRedactor(redaction: Redaction | undefined): Redactor {
  const literals = new Set((redaction?.values ?? []).filter((value) => value !== ""));
  // Global copies: a caller's RegExp keeps its own lastIndex untouched.
  const patterns = (redaction?.patterns ?? []).map((pattern) =>
    typeof pattern === "string"
      ? new RegExp(pattern, "g")
      : new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
  );
  let sorted: string[] = [];
  const sort = () => {
    // Longest first: a value that contains another is replaced whole.
    sorted = [...literals].sort((left, right) => right.length - left.length);
  };
  sort();
  const text = (input: string): string => {
    let output = input;
    for (const value of sorted) if (output.includes(value)) output = output.split(value).join(REDACTED);
    for (const pattern of patterns) output = output.replace(pattern, REDACTED);
    return output;
  };
  // Copies only what changes: an event without a secret (the common case, on every event) allocates nothing.
  const value = (input: unknown): unknown => {
    if (typeof input === "string") return text(input);
    if (Array.isArray(input)) {
      const output = input.map(value);
      return output.some((entry, index) => entry !== input[index]) ? output : input;
    }
    if (input && typeof input === "object" && isPlain(input)) {
      let changed: Record<string, unknown> | undefined;
      for (const [key, entry] of Object.entries(input)) {
        const redacted = value(entry);
        if (redacted !== entry) (changed ??= { ...input })[key] = redacted;
      }
      return changed ?? input;
    }
    return input;
  };
  const redactor: Redactor = {
    get empty() {
      return sorted.length === 0 && patterns.length === 0;
    },
    get values() {
      return sorted;
    },
    conversations: redaction?.conversations === true,
    text: (input) => (redactor.empty ? input : text(input)),
    value: <T>(input: T) => (redactor.empty ? input : (value(input) as T)),
    addCredentials(values) {
      for (const credential of values) if (credential.length >= MINIMUM_CREDENTIAL_LENGTH) literals.add(credential);
      sort();
    },
  };
  return redactor;
}

function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
