import { fileURLToPath } from "node:url";
import { localProvider } from "@outpost/provider-local";
import { describeConversationStore } from "@outpost/testkit";
import { geminiConversationStore } from "../src/index.js";

// The kit's round trip and hostile ids, on a recorded gemini session and the local provider.
describeConversationStore({
  store: geminiConversationStore(),
  fixture: fileURLToPath(new URL("./fixtures/sessions/gemini", import.meta.url)),
  provider: (home) => localProvider({ home }),
});
