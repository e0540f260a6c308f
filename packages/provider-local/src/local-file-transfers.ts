import type { FileManifestEntry, FileTransfers, TransferOptions } from "@outpost/core";
import { copyEntries } from "./copy-entries.js";
import { buildManifest } from "./manifest.js";
import { asOutpostFailure } from "./map-file-error.js";
import { transferGuard } from "./transfer-guard.js";

/** How the lease turns a sandbox path into a host path and refuses work after release. */
export interface SandboxSide {
  resolve(path: string, what: string): Promise<string>;
  assertUsable(what: string): void;
}

/** Manifest and batch transfers on the host file system, SHA-256 verified. */
export class LocalFileTransfers implements FileTransfers {
  constructor(private readonly sandbox: SandboxSide) {}

  async manifest(source: string, paths: readonly string[], options?: TransferOptions): Promise<FileManifestEntry[]> {
    this.sandbox.assertUsable("list a manifest");
    const check = transferGuard(options, "Building the manifest");
    check();
    return asOutpostFailure("Building the manifest", async () =>
      buildManifest(await this.sandbox.resolve(source, "manifest source"), paths, check),
    );
  }

  async downloadBatch(
    source: string,
    entries: readonly FileManifestEntry[],
    destination: string,
    options?: TransferOptions,
  ): Promise<void> {
    this.sandbox.assertUsable("download files");
    const check = transferGuard(options, "The batch download");
    check();
    await asOutpostFailure("The batch download", async () =>
      copyEntries(await this.sandbox.resolve(source, "download source"), entries, destination, check),
    );
  }

  async uploadBatch(source: string, entries: readonly FileManifestEntry[], destination: string, options?: TransferOptions): Promise<void> {
    this.sandbox.assertUsable("upload files");
    const check = transferGuard(options, "The batch upload");
    check();
    await asOutpostFailure("The batch upload", async () =>
      copyEntries(source, entries, await this.sandbox.resolve(destination, "upload destination"), check),
    );
  }
}
