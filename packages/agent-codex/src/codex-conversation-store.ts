import { transcriptStore, type PortableConversationStore, type TranscriptStoreOptions } from "@outpost/conversations";

export type CodexConversationStoreOptions = TranscriptStoreOptions;

/**
 * Codex conversations: `<CODEX_HOME or ~/.codex>/sessions/YYYY/MM/DD/rollout-<timestamp>-<id>.jsonl`.
 * Restored at the same date folders and file name (codex finds a thread by id under `sessions/**`); its
 * SQLite state is rebuilt from the rollout, so it is never captured.
 */
export function codexConversationStore(options: CodexConversationStoreOptions = {}): PortableConversationStore {
  return transcriptStore(
    {
      format: "codex",
      root: { variable: "CODEX_HOME", directory: ".codex" },
      sessions: "sessions",
      transcriptPattern: (id) => `^\\d{4}/\\d{2}/\\d{2}/rollout-[^/]+-${id.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\.jsonl$`,
      destination: ({ original }) => original,
    },
    // Your transcripts follow you across checkouts, as the CLI keeps them: under your home by default.
    { defaultHome: "user", ...options },
  );
}
