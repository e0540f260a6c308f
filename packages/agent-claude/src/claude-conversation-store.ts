import { transcriptStore, type PortableConversationStore, type TranscriptStoreOptions } from "@outpost/conversations";

export type ClaudeConversationStoreOptions = TranscriptStoreOptions;

/** Claude Code's project folder name for a cwd: every character that is not a letter or digit becomes `-`. */
export function claudeProjectSlug(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
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
      destination: ({ id, workspace }) => `${claudeProjectSlug(workspace)}/${id}.jsonl`,
      // Paths under ~/.claude/projects/<slug>/ (memory, sub-agents) name the project by its slug.
      plan: ({ origin, workspace }) => ({ pairs: [{ from: claudeProjectSlug(origin.workspace), to: claudeProjectSlug(workspace) }] }),
    },
    options,
  );
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
