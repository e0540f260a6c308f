import { join } from "node:path";

/** `<home or repository>/.outpost/conversations/<format>`: where captured conversations live on the host. */
export function conversationDirectory(format: string, repository: string, home?: string): string {
  return join(home ?? repository, ".outpost", "conversations", format);
}
