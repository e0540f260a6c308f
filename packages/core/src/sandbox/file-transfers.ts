export interface TransferOptions {
  readonly signal?: AbortSignal;
  readonly deadlineMs?: number;
}

export interface FileManifestEntry {
  /** Path relative to the manifest's source, with `/` separators. */
  readonly path: string;
  readonly kind: "file" | "link";
  readonly mode: number;
  readonly size: number;
  /** Hex SHA-256 of the file's bytes, or of the link's target text. */
  readonly sha256: string;
}

/** Manifest and batch capabilities for remote sync: move only changed files, verify every SHA-256. */
export interface FileTransfers {
  /** Lists `paths` (relative to `source`; directories expand) and rejects any that escape `source`. */
  manifest(source: string, paths: readonly string[], options?: TransferOptions): Promise<FileManifestEntry[]>;
  /** Copies exactly `entries` from the sandbox `source` into the host `destination`, verifying SHA-256. */
  downloadBatch(source: string, entries: readonly FileManifestEntry[], destination: string, options?: TransferOptions): Promise<void>;
  /** Copies exactly `entries` from the host `source` into the sandbox `destination`, verifying SHA-256. */
  uploadBatch?(source: string, entries: readonly FileManifestEntry[], destination: string, options?: TransferOptions): Promise<void>;
}
