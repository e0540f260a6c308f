import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeConversationStore } from "@outpost/agent-claude";
import { codexConversationStore } from "@outpost/agent-codex";
import { copilotConversationStore } from "@outpost/agent-copilot";
import { geminiConversationStore } from "@outpost/agent-gemini";
import { kimiConversationStore } from "@outpost/agent-kimi";
import { opencodeConversationStore } from "@outpost/agent-opencode";

describe("conversationHome default", () => {
  const repository = "/work/some-checkout";

  it("keeps Claude, Codex, Gemini and OpenCode conversations under your home, Copilot and Kimi bundles under the repository", () => {
    expect(claudeConversationStore().directory(repository)).toBe(join(homedir(), ".outpost", "conversations", "claude"));
    expect(codexConversationStore().directory(repository)).toBe(join(homedir(), ".outpost", "conversations", "codex"));
    // Their CLIs keep sessions in your home too: a continuation in another checkout finds them without conversationHome.
    expect(geminiConversationStore().directory(repository)).toBe(join(homedir(), ".outpost", "conversations", "gemini"));
    expect(opencodeConversationStore().directory(repository)).toBe(join(homedir(), ".outpost", "conversations", "opencode"));
    expect(opencodeConversationStore({ defaultHome: "repository" }).directory(repository)).toBe(
      join(repository, ".outpost", "conversations", "opencode"),
    );
    expect(copilotConversationStore().directory(repository)).toBe(join(repository, ".outpost", "conversations", "copilot"));
    expect(kimiConversationStore().directory(repository)).toBe(join(repository, ".outpost", "conversations", "kimi"));
  });

  it("an explicit conversationHome wins for every format", () => {
    const stores = [claudeConversationStore(), codexConversationStore(), geminiConversationStore(), opencodeConversationStore()];
    for (const store of [...stores, copilotConversationStore(), kimiConversationStore()]) {
      expect(store.directory(repository, "/elsewhere").startsWith(join("/elsewhere", ".outpost", "conversations"))).toBe(true);
    }
  });

  it("a Claude store can still be told to keep its transcripts in the repository", () => {
    expect(claudeConversationStore({ defaultHome: "repository" }).directory(repository)).toBe(
      join(repository, ".outpost", "conversations", "claude"),
    );
  });
});
