import type { PinnedCli } from "@outpost/core";

/** Installs a CLI from an npm package at an exact version (`npm install --global --prefix …` in the sandbox). */
export interface NpmBootstrapSource {
  readonly npm: PinnedCli;
}

/** Installs a CLI from a `.tar` or `.tar.gz` archive whose SHA-512 is pinned. */
export interface ArchiveBootstrapSource {
  readonly archive: {
    /** Host path of the archive, or an `http(s)` URL the host downloads it from. */
    readonly source: string;
    /** SHA-512 of the archive: SRI form (`sha512-<base64>`) or 128 hex digits. Checked before anything is extracted. */
    readonly sha512: string;
    /** Path of the executable inside the archive, e.g. `agy/bin/agy`; its file name is the agent's executable. */
    readonly executable: string;
  };
}

export type BootstrapSource = NpmBootstrapSource | ArchiveBootstrapSource;

/**
 * The object form of the `bootstrap` option (bootstrap on, with settings). `true` is the same as `{}`;
 * `false` installs nothing.
 */
export interface BootstrapOptions {
  /** npm registry the sandbox installs from (passed as `npm_config_registry`). Default: the sandbox's npm configuration. */
  readonly registry?: string;
  /** Where the CLI of a bootstrap name comes from, over the agents' pinned npm packages (e.g. an archive). */
  readonly sources?: Readonly<Record<string, BootstrapSource>>;
}
