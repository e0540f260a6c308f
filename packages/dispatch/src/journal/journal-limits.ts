/** Size limits of a journal; every one is enforced when writing and again when reading. */
export interface JournalLimits {
  /** Largest binary patch of one recorded commit, default 16 MiB; a larger commit is refused (code `limit`). */
  readonly maxPatchBytes: number;
  /** Largest segment, default 32 MiB: a segment is cut before it grows past this. */
  readonly maxSegmentBytes: number;
  /** Largest single event record, default 1 MiB: longer event texts are cut, with a note saying so. */
  readonly maxEventBytes: number;
  /** Largest index, default 4 MiB. */
  readonly maxIndexBytes: number;
  /** Most segments a reader accepts, default 100,000. */
  readonly maxSegments: number;
}

export const DEFAULT_JOURNAL_LIMITS: JournalLimits = Object.freeze({
  maxPatchBytes: 16 * 1024 * 1024,
  maxSegmentBytes: 32 * 1024 * 1024,
  maxEventBytes: 1024 * 1024,
  maxIndexBytes: 4 * 1024 * 1024,
  maxSegments: 100_000,
});
