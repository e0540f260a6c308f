import { describe, expect, it } from "vitest";
import * as gemini from "../src/index.js";

describe("@outpost/agent-gemini exports", () => {
  it("exposes the factory, settings, decoder, rules, store and version through the barrel", () => {
    expect(Object.keys(gemini).sort()).toEqual(
      [
        "descriptor",
        "GEMINI_BOOTSTRAP_PACKAGE",
        "GEMINI_CLI_VERSION",
        "GEMINI_FAILURE_RULES",
        "GEMINI_FEATURES",
        "GeminiDecoder",
        "geminiAgent",
        "geminiConversationStore",
        "geminiProjectSlug",
        "geminiSettings",
        "GEMINI_SETTINGS_VARIABLE",
        "geminiShortName",
        "geminiUsage",
      ].sort(),
    );
    expect(new gemini.GeminiDecoder().decode('\uFEFF{"type":"init","session_id":"g"}')).toEqual([{ type: "conversation", id: "g" }]);
    expect(gemini.geminiAgent().storage?.name).toEqual(expect.any(String));
  });
});
