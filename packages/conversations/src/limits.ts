/** Size limits a capture enforces before anything reaches the host. */
export interface CaptureLimits {
  /** Largest total size of one conversation, in bytes. */
  readonly maxBytes?: number;
  /** Most files in one conversation. */
  readonly maxFiles?: number;
}

/** Transcripts are single large files: 1 GiB. */
export const DEFAULT_TRANSCRIPT_MAX_BYTES = 1024 * 1024 * 1024;
/** Session bundles are read whole into memory: 256 MiB and 5,000 files. */
export const DEFAULT_BUNDLE_MAX_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 5000;
