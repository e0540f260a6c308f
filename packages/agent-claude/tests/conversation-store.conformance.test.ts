import { fileURLToPath } from "node:url";
import { localProvider } from "@outpost/provider-local";
import { describeConversationStore } from "@outpost/testkit";
import { claudeConversationStore } from "../src/index.js";

// The kit's round trip and hostile ids, on a recorded claude session and the local provider.
describeConversationStore({
  store: claudeConversationStore(),
  fixture: fileURLToPath(new URL("./fixtures/sessions/claude", import.meta.url)),
  provider: (home) => localProvider({ home }),
});
