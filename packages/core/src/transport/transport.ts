export interface TransportEntry {
  readonly key: string;
  /** Opaque; changes on every write. */
  readonly revision: string;
  readonly size: number;
  /** ISO 8601. */
  readonly modifiedAt: string;
}

export interface TransportObject extends TransportEntry {
  readonly bytes: Uint8Array;
}

export interface TransportReference {
  readonly key: string;
  readonly revision: string;
}

export interface TransportReadOptions {
  readonly signal?: AbortSignal;
  /** Refuse (code `limit`) an object larger than this, without downloading it whole. */
  readonly maxBytes?: number;
}

export interface TransportWriteOptions {
  readonly signal?: AbortSignal;
  /** `null`: create only; a string: the current revision must match. A lost race is code `conflict`. */
  readonly ifRevision: string | null;
}

export interface TransportRemoveOptions {
  readonly signal?: AbortSignal;
  /** The current revision; a replacement written by someone else is never removed (code `conflict`). */
  readonly ifRevision: string;
}

/** A versioned object store. Keys are `/`-separated relative paths; escapes are refused. */
export interface Transport {
  /** Contract version; omitted, it is the version the reference pages describe ("v1"). Another is refused. */
  readonly specificationVersion?: "v1";
  readonly name: string;
  read(key: string, options?: TransportReadOptions): Promise<TransportObject | undefined>;
  write(key: string, bytes: Uint8Array, options: TransportWriteOptions): Promise<TransportEntry>;
  remove(key: string, options: TransportRemoveOptions): Promise<void>;
  list(prefix?: string, options?: { readonly signal?: AbortSignal }): AsyncIterable<TransportEntry>;
}
