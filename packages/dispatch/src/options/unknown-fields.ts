import { OutpostError } from "@outpost/core";
import { BRANCH_FIELDS, DISPATCH_FIELDS, NESTED_FIELDS } from "./known-fields.js";

/**
 * Refuses option fields dispatch() does not know, naming the nearest known one: a misspelt or misplaced
 * field (`branch: { mode: "integrate", from }`) would otherwise be ignored and the dispatch run otherwise
 * than asked. A field whose value is `undefined` is left alone (spreads of optional values carry them).
 */
export function refuseUnknownFields(options: unknown, where = "dispatch()", known: readonly string[] = Object.keys(DISPATCH_FIELDS)): void {
  if (typeof options !== "object" || options === null) return;
  const record = options as Record<string, unknown>;
  check(record, known, where);
  for (const [field, fields] of Object.entries(NESTED_FIELDS)) {
    const value = record[field];
    if (typeof value === "object" && value !== null && !Array.isArray(value) && typeof value !== "function")
      check(value as Record<string, unknown>, fields, `${where} option ${field}`);
  }
  const branch = record.branch as { mode?: unknown } | undefined;
  const byMode = typeof branch === "object" && branch !== null && typeof branch.mode === "string" ? BRANCH_FIELDS[branch.mode] : undefined;
  if (byMode) check(branch as Record<string, unknown>, byMode, `${where} option branch (mode "${String(branch!.mode)}")`);
}

function check(record: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(record).filter((field) => record[field] !== undefined && !known.includes(field));
  if (unknown.length === 0) return;
  const hints = unknown.map((field) => {
    const nearest = nearestField(field, known);
    return nearest ? `${field} (did you mean ${nearest}?)` : field;
  });
  throw new OutpostError(
    "configuration",
    `${where} does not know the field${unknown.length > 1 ? "s" : ""} ${hints.join(", ")}. Known fields: ${known.join(", ")}. ` +
      "Remove it or use one of those.",
    { details: { fields: unknown, nearest: Object.fromEntries(unknown.map((field) => [field, nearestField(field, known) ?? null])) } },
  );
}

/** The known field closest in spelling, when close enough to be a likely typo. */
export function nearestField(field: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(field.toLowerCase(), name.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  return best !== undefined && best.distance <= Math.max(2, Math.floor(field.length / 3)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
