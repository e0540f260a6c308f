import { OutpostError } from "@outpost/core";

/** The longest delay Node's timers hold (2^31 − 1 ms, ~24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A whole number of milliseconds from `minimum` to MAX_TIMER_MS, else code `configuration` saying which. */
export function checkMilliseconds(name: string, value: unknown, minimum: 0 | 1): number {
  const shown = typeof value === "number" ? String(value) : (JSON.stringify(value) ?? String(value));
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
    throw new OutpostError(
      "configuration",
      `${name} must be a ${minimum === 1 ? "positive" : "non-negative"} whole number of milliseconds, got ${shown}.`,
      { details: { option: name } },
    );
  }
  if (value > MAX_TIMER_MS) {
    throw new OutpostError(
      "configuration",
      `${name} is ${value} ms, more than timers can hold (${MAX_TIMER_MS} ms, about 24.8 days): it would fire at once. Use a value up to ${MAX_TIMER_MS}.`,
      { details: { option: name, maximum: MAX_TIMER_MS } },
    );
  }
  return value;
}
