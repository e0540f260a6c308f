import { sessionPathPattern } from "@outpost/core";

/** One file of a session bundle. */
export interface SessionBundleEntry {
  /** Bundle-relative, `/`-separated. */
  readonly path: string;
  readonly mode: number;
  readonly encoding: "utf8" | "base64";
  readonly data: string;
}

/** The single host file a session-bundle store writes per conversation (`<directory>/<id>.json`). */
export interface SessionBundle {
  readonly outpost: "session-bundle";
  readonly version: 1;
  readonly format: string;
  readonly id: string;
  /** Bucket the session was captured from (bucketed profiles). */
  readonly bucket: string | null;
  readonly origin: { readonly workspace: string; readonly home: string };
  readonly capturedAt: string;
  readonly files: readonly SessionBundleEntry[];
}

/** A RegExp in a form that crosses into the sandbox. */
export interface SerializedPattern {
  readonly source: string;
  readonly flags: string;
}

/** The pattern as every engine applies it (`sessionPathPattern`: `.` matches line breaks too), ready to send. */
export function serializePattern(pattern: RegExp): SerializedPattern {
  const applied = sessionPathPattern(pattern);
  return { source: applied.source, flags: applied.flags };
}
