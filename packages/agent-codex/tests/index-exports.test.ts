import { describe, expect, it } from "vitest";
import * as codex from "../src/index.js";

describe("@outpost/agent-codex exports", () => {
  it("exposes the factory, config, decoder, rules, store and version through the barrel", () => {
    expect(Object.keys(codex).sort()).toEqual(
      [
        "descriptor",
        "CODEX_API_KEY_VARIABLE",
        "CODEX_BOOTSTRAP_PACKAGE",
        "CODEX_CLI_VERSION",
        "CODEX_FAILURE_RULES",
        "CODEX_FEATURES",
        "CODEX_FORK_SINCE",
        "codexTranscriptUsage",
        "CodexDecoder",
        "CodexAppServerDecoder",
        "CodexAppServerSession",
        "codexAgent",
        "codexConfig",
        "codexConfigOverrides",
        "codexConversationStore",
        "codexUsage",
      ].sort(),
    );
    expect(new codex.CodexDecoder().decode('\uFEFF{"type":"thread.started","thread_id":"t"}')).toEqual([{ type: "conversation", id: "t" }]);
    expect(codex.codexAgent().storage?.name).toEqual(expect.any(String));
  });
});
