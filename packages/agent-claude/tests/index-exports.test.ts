import { describe, expect, it } from "vitest";
import * as claude from "../src/index.js";

describe("@outpost/agent-claude exports", () => {
  it("exposes the factory, decoder, rules, store and version through the barrel", () => {
    expect(Object.keys(claude).sort()).toEqual(
      [
        "descriptor",
        "CLAUDE_BOOTSTRAP_PACKAGE",
        "CLAUDE_CLI_VERSION",
        "CLAUDE_CREDENTIAL_FILES",
        "CLAUDE_FAILURE_RULES",
        "CLAUDE_FEATURES",
        "ClaudeDecoder",
        "claudeAgent",
        "claudeConversationStore",
        "claudeSettings",
        "claudeProjectSlug",
        "claudeUsage",
      ].sort(),
    );
    expect(new claude.ClaudeDecoder().decode('\uFEFF{"type":"system","subtype":"init","session_id":"s"}')).toEqual([
      { type: "conversation", id: "s" },
    ]);
    expect(claude.claudeAgent().storage?.name).toEqual(expect.any(String));
  });
});
