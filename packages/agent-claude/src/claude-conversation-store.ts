import {
  COMMON_CREDENTIAL_FILES,
  credentialFiles,
  transcriptStore,
  type PortableConversationStore,
  type TranscriptStoreOptions,
} from "@outpost/conversations";

/** Never captured from a session's sidecar folder: the common credential names plus Claude's own. */
export const CLAUDE_CREDENTIAL_FILES = credentialFiles([...COMMON_CREDENTIAL_FILES, ".claude.json"]);

export type ClaudeConversationStoreOptions = TranscriptStoreOptions;

const MAX_SLUG = 200;

/**
 * Claude Code's project folder name for a cwd: every character that is not a letter or digit becomes `-`;
 * past 200 characters it is cut and suffixed with a base-36 hash of the cwd (measured with claude 2.1.332).
 */
export function claudeProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^A-Za-z0-9]/g, "-");
  if (slug.length <= MAX_SLUG) return slug;
  let hash = 0;
  for (let index = 0; index < cwd.length; index += 1) hash = ((hash << 5) - hash + cwd.charCodeAt(index)) | 0;
  return `${slug.slice(0, MAX_SLUG)}-${Math.abs(hash).toString(36)}`;
}

/**
 * Claude Code conversations: `<home>/.claude/projects/<slug(cwd)>/<id>.jsonl` plus the optional `<id>/`
 * sidecar folder (sub-agents). Restored under the slug of the sandbox workspace, which is where
 * `claude --resume <id>` looks. `CLAUDE_CONFIG_DIR` replaces `~/.claude` when set.
 */
export function claudeConversationStore(options: ClaudeConversationStoreOptions = {}): PortableConversationStore {
  return transcriptStore(
    {
      format: "claude",
      root: { variable: "CLAUDE_CONFIG_DIR", directory: ".claude" },
      sessions: "projects",
      transcriptPattern: (id) => `^[^/]+/${escape(id)}\\.jsonl$`,
      sidecar: true,
      sidecarExclude: CLAUDE_CREDENTIAL_FILES,
      destination: ({ id, workspace }) => `${claudeProjectSlug(workspace)}/${id}.jsonl`,
      // On your own home every workspace the conversation visited keeps a copy: the current one's is continued.
      workspaceTranscript: (id, workspace) => `${claudeProjectSlug(workspace)}/${id}.jsonl`,
      // Paths under ~/.claude/projects/<slug>/ (memory, sub-agents) name the project by its slug.
      plan: ({ origin, workspace }) => ({ pairs: [{ from: claudeProjectSlug(origin.workspace), to: claudeProjectSlug(workspace) }] }),
    },
    // Your transcripts follow you across checkouts, as the CLI keeps them: under your home by default.
    { defaultHome: "user", ...options },
  );
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
