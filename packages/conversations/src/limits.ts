/** Size limits a capture enforces before anything reaches the host. */
export interface CaptureLimits {
  /** Largest total size of one conversation, in bytes. */
  readonly maxBytes?: number;
  /** Most files in one conversation. */
  readonly maxFiles?: number;
}

/** Transcripts are single large files: 1 GiB. */
export const DEFAULT_TRANSCRIPT_MAX_BYTES = 1024 * 1024 * 1024;
/** Session bundles are read whole into memory: 64 MiB and 4,096 files, as the reference pages state. */
export const DEFAULT_BUNDLE_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_BUNDLE_MAX_FILES = 4096;
/** Files of one transcript conversation (the transcript and its sidecar files). */
export const DEFAULT_MAX_FILES = 5000;
