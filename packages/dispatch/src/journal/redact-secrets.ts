/** Replaces every occurrence of a secret in serialized JSON with this mark. */
export const REDACTED = "[redacted]";

// Values this short are too likely to appear by chance (a "1", a "true") to be worth hiding.
const MINIMUM_SECRET_LENGTH = 8;

/**
 * Builds a function that removes the given secret values from JSON text. The values are matched in their
 * JSON-escaped form, so a key containing quotes or backslashes is found too, and the text stays valid JSON.
 */
export function secretRedactor(secrets: Iterable<string>): (json: string) => string {
  const escaped = [...new Set(secrets)]
    .filter((value) => value.length >= MINIMUM_SECRET_LENGTH)
    .map((value) => JSON.stringify(value).slice(1, -1))
    // Longest first: a secret that contains another is replaced whole.
    .sort((left, right) => right.length - left.length);
  if (escaped.length === 0) return (json) => json;
  return (json) => {
    let text = json;
    for (const value of escaped) text = text.split(value).join(REDACTED);
    return text;
  };
}
