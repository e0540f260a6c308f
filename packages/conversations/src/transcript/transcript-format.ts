import type { PathPair } from "../relocation/path-rewriter.js";

/** What a transcript store recorded about where a conversation came from (`origin.json`). */
export interface TranscriptOrigin {
  readonly outpost: "transcript";
  readonly version: 1;
  readonly format: string;
  readonly id: string;
  /** Sessions-relative path of the transcript in the sandbox it was captured from. */
  readonly transcript: string;
  readonly mode: number;
  /** Sessions-relative sidecar folder, when one was captured. */
  readonly sidecar?: string;
  readonly workspace: string;
  readonly home: string;
  readonly capturedAt: string;
}

export interface TranscriptDestinationInput {
  readonly id: string;
  /** Sessions-relative path the transcript had where it was captured. */
  readonly original: string;
  /** Workspace (cwd) the conversation is restored for. */
  readonly workspace: string;
  /** Text of the `probes` files in the destination CLI home (`null` when absent). */
  readonly probes: Readonly<Record<string, string | null>>;
}

export interface TranscriptRestorePlanInput extends TranscriptDestinationInput {
  readonly origin: TranscriptOrigin;
  readonly home: string;
  /** Sessions-relative destination chosen by `destination`. */
  readonly destination: string;
}

export interface TranscriptRestorePlan {
  /** Extra replacements on top of the workspace and home paths (e.g. a path hash). */
  readonly pairs?: readonly PathPair[];
  /** CLI-home-relative index files to write once the transcript is in place. */
  readonly writes?: readonly { readonly path: string; readonly text: string }[];
}

/** How one agent lays out its one-file-per-conversation transcripts. */
export interface TranscriptFormat {
  /** Persisted format name; keep it stable. */
  readonly format: string;
  /** Store name; defaults to `format`. */
  readonly name?: string;
  /**
   * CLI home: `$variable` when set, otherwise `directory` under the agent home. `underVariable` is appended
   * to the variable's value, for CLIs whose variable replaces the user's home (`$GEMINI_CLI_HOME/.gemini`).
   */
  readonly root: { readonly variable?: string; readonly directory: string; readonly underVariable?: string };
  /** Directory under the CLI home that holds the transcripts. */
  readonly sessions: string;
  /** RegExp source matched against sessions-relative paths to find the transcript of `id`. */
  transcriptPattern(id: string): string;
  /** Field of the first JSON line that must equal the id (file names that carry only a prefix of it). */
  readonly firstLineField?: string;
  /**
   * Several files holding the id (a home shared by workspaces keeps a copy per workspace; Gemini CLI leaves a
   * stub beside the transcript it resumes): by default (`"newest"`) the current workspace's copy
   * (`workspaceTranscript`) is taken, else the one written last. `"refuse"` refuses them all.
   */
  readonly severalMatches?: "refuse" | "newest";
  /** Sessions-relative path the CLI writes the transcript of `id` at, for a session run in `workspace`. */
  workspaceTranscript?(id: string, workspace: string): string;
  /**
   * For CLIs whose file names do not tell the workspace: the first-line field and value that mark a transcript
   * written for `workspace` (Gemini CLI: `projectHash`, the sha256 of the project root). Of several matches the
   * workspace's are taken first, the newest of them.
   */
  workspaceFirstLine?(workspace: string): { readonly field: string; readonly value: string };
  /** Also capture the `<id>/` folder beside the transcript (sub-agent files). */
  readonly sidecar?: boolean;
  /** Sidecar-relative paths never captured: credential files a CLI or a tool may leave there. */
  readonly sidecarExclude?: RegExp;
  /** CLI-home-relative files read in the sandbox before restoring, handed to `destination` and `plan`. */
  readonly probes?: readonly string[];
  /** Sessions-relative path the restored transcript gets. */
  destination(input: TranscriptDestinationInput): string;
  /** Extra replacements and index files for a restore. */
  plan?(input: TranscriptRestorePlanInput): TranscriptRestorePlan;
}
