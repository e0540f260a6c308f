import type { Writable } from "node:stream";
import type { SandboxAnchors } from "@outpost/core";
import type { OperationGuard } from "./operation-guard.js";
import type { StagedEntry, StagingMeter } from "./tar-unpack.js";

/** One run of a shared transfer script (see transfer-scripts.ts). */
export interface ScriptRequest {
  readonly script: string;
  /** `$0` of the script, as process lists show it. */
  readonly name: string;
  readonly arguments: readonly string[];
  readonly onStdout: (chunk: Buffer) => void;
  readonly onStderr: (chunk: Buffer) => void;
  /** Writes the script's stdin; it is closed when this resolves. Absent: no stdin. */
  readonly feed?: (stdin: Writable) => Promise<void>;
  readonly guard: OperationGuard;
  readonly what: string;
}

/** A script that writes a tar (CREATE_TAR, CREATE_TAR_OF_LIST) and the host staging it is unpacked into. */
export interface ArchiveRequest {
  readonly script: string;
  /** The script's arguments once the channel chose where the archive goes: "-" (stdout) or a sandbox file. */
  readonly arguments: (archive: string) => readonly string[];
  /** Bytes of stdout before the tar stream (a kind marker) that come back as `prefix`. */
  readonly prefixBytes: number;
  readonly staging: string;
  readonly guard: OperationGuard;
  readonly action: string;
  /** Counts each file and link before it is staged, refusing the archive by throwing (see `unpackToStaging`). */
  readonly meter?: StagingMeter;
}

/**
 * What the shared transfer code needs from a provider's sandbox: its anchors, a way to run a script, and
 * a way to bring a tar back to the host. Everything else (scans, packing, staging, manifests, checks)
 * is written once in this package.
 */
export interface SandboxChannel extends SandboxAnchors {
  /** Throws `provider` once the lease was released. */
  assertUsable(what: string): void;
  /** Owner written into uploaded archive entries; absent: the extracting user. */
  readonly owner?: { readonly uid: number; readonly gid: number };
  /** What to check when an archive arrives corrupt, for the error message (e.g. "the Docker engine (docker info)"). */
  readonly connection: string;
  /** Runs `/bin/sh -c <script> <name> <arguments…>` in "/" and resolves with its exit status. */
  runScript(request: ScriptRequest): Promise<number>;
  /** Runs an archive-writing script and unpacks its tar into `staging` (see `unpackToStaging`). */
  archive(request: ArchiveRequest): Promise<{ prefix: string; entries: StagedEntry[] }>;
}
