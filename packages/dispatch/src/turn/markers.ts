import { OutpostError } from "@outpost/core";

export const DEFAULT_MARKER = "<outpost>done</outpost>";

/** Normalizes `until`: one marker or a list; an empty list disables the search; empty strings are refused. */
export function resolveMarkers(until: string | readonly string[] | undefined): readonly string[] {
  if (until === undefined) return [DEFAULT_MARKER];
  const markers = typeof until === "string" ? [until] : [...until];
  for (const marker of markers) {
    if (typeof marker !== "string" || marker === "") {
      throw new OutpostError("configuration", `until contains an empty marker. Give non-empty marker strings, or [] to run every pass.`);
    }
  }
  return markers;
}

/** The first marker contained in `text`, if any. */
export function findMarker(text: string, markers: readonly string[]): string | undefined {
  return markers.find((marker) => text.includes(marker));
}
