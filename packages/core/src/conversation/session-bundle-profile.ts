/**
 * The captured files as handed to `validate`. `text(path)` is the public library's spelling; each file's
 * text is also a property named by its bundle-relative path (today's spelling), except a file named `text`,
 * which only `text("text")` reaches.
 */
export interface SessionBundleFiles {
  /** UTF-8 text of a bundled file by bundle-relative path, or undefined when the bundle does not hold it. */
  text(path: string): string | undefined;
  readonly [path: string]: string | ((path: string) => string | undefined) | undefined;
}

/** Pure helpers available to a profile's `bucket` hook inside the sandbox. */
export interface SessionBundleHelpers {
  /** Joins sandbox path segments with the sandbox's separator (`/`). */
  join(...segments: string[]): string;
  /** Hex SHA-256 of UTF-8 text. */
  sha256(text: string): string;
  /** Hex MD5 of UTF-8 text (a CLI's folder name, never a check of integrity). */
  md5(text: string): string;
  /** Absolute path with `.`/`..` segments and trailing separators removed. */
  normalize(path: string): string;
  /** Last path segment. */
  basename(path: string): string;
}

/** What a `relocate` hook is told about the move. */
export interface SessionBundleRelocation {
  readonly id: string;
  /** Sandbox workspace the restored session must point to (same as `to.workspace`). */
  readonly cwd: string;
  /** Sandbox folder the session is restored into. */
  readonly target: string;
  readonly from: { readonly workspace: string; readonly home: string };
  readonly to: { readonly workspace: string; readonly home: string };
  /** Bucket of the destination workspace (bucketed profiles). */
  readonly bucket?: string;
  /** Replaces `from` paths by `to` paths at path boundaries only (`/repo` never touches `/repository`). */
  rewrite(text: string): string;
  /** Same helpers as `bucket` receives. */
  readonly helpers: SessionBundleHelpers;
}

/** How a directory-per-session agent (Copilot, Kimi) is captured and restored. */
export interface SessionBundleProfile {
  /** Contract version this implementation follows, checked when the plugin is handed to the engine or a kit; omitted, the version the reference pages describe ("v1"). */
  readonly specificationVersion?: "v1";
  /** Persisted format name, used in bundles, transport keys and host paths. */
  readonly format: string;
  /** CLI home: `$variable` when set, otherwise `directory` under the agent home. */
  readonly root: { readonly variable?: string; readonly directory: string };
  /** Directory under the CLI home that holds sessions. */
  readonly sessions: string;
  /** Sessions are grouped in `<sessions>/<bucket>/<id>` instead of `<sessions>/<id>`. */
  readonly buckets?: boolean;
  /**
   * Bundle-relative paths to capture; a directory is tested by its own path. No `g`, `y` or `m` flags; applied
   * with `s` (`sessionPathPattern`), so names holding line breaks match like any other.
   */
  readonly include: RegExp;
  readonly exclude?: RegExp;
  /** Files whose absence makes the session unusable (at least one). */
  readonly required: readonly string[];
  /** Files passed to `relocate` as text during restoration; others are restored byte for byte. */
  readonly relocated?: readonly string[];
  /** Self-contained; returns an error message when the bundled session is unsupported. */
  readonly validate?: (files: SessionBundleFiles, id: string) => string | undefined;
  /** Self-contained; names the bucket restoration uses for a workspace. Required with `buckets`. */
  readonly bucket?: (cwd: string, helpers: SessionBundleHelpers) => string;
  /** Self-contained; rewrites one relocated file for the restored workspace. Throwing aborts the restore. */
  readonly relocate?: (path: string, text: string, relocation: SessionBundleRelocation) => string;
  /**
   * CLI-home-relative file through which the CLI finds a workspace's sessions (Kimi CLI's `kimi.json`),
   * updated by `index` when a session is restored, in the same replacement as the session.
   */
  readonly indexFile?: string;
  /** Self-contained; the index file's new text (`text` undefined when it is absent). Throwing aborts the restore. */
  readonly index?: (text: string | undefined, relocation: SessionBundleRelocation) => string;
}
