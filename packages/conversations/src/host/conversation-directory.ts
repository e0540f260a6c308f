import { join } from "node:path";

/**
 * `<home or repository>/.outpost/conversations/<format>`: where captured conversations live on the host.
 * `home` is the dispatch's conversationHome, else the store's default (your home for Claude, Codex, Gemini and OpenCode).
 */
export function conversationDirectory(format: string, repository: string, home?: string): string {
  return join(home ?? repository, ".outpost", "conversations", format);
}
