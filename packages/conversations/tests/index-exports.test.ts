import { describe, expect, it } from "vitest";
import * as conversations from "../src/index.js";

describe("@outpost/conversations exports", () => {
  it("exposes its engines and helpers as values through the barrel", () => {
    for (const name of [
      "transcriptStore",
      "sessionBundleStore",
      "archivedStore",
      "isPortableConversationStore",
      "createPathRewriter",
      "rewriteJsonLine",
      "rewriteJsonBlock",
      "relocateFile",
      "assertRelocatablePath",
      "relocationPairs",
      "runSandboxScript",
      "removeSandboxPath",
      "assertConversationId",
      "conversationDirectory",
      "packDirectory",
      "unpackDirectory",
      "replaceDirectory",
    ] as const) {
      expect(typeof conversations[name], name).toBe("function");
    }
    expect(conversations.DEFAULT_MAX_FILES).toBeGreaterThan(0);
  });

  it("builds stores that satisfy the NativeConversationStore shape", () => {
    const store = conversations.transcriptStore({
      format: "x",
      root: { directory: ".x" },
      sessions: "s",
      transcriptPattern: (id) => `^${id}\\.jsonl$`,
      destination: ({ id }) => `${id}.jsonl`,
    });
    expect(store.name).toBe("x");
    expect(store.directory("/repo", "/home/u")).toBe("/home/u/.outpost/conversations/x");
    expect(store.directory("/repo")).toBe("/repo/.outpost/conversations/x");
    expect(conversations.isPortableConversationStore(store)).toBe(true);
  });
});
