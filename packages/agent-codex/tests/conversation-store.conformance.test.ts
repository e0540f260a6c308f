import { fileURLToPath } from "node:url";
import { localProvider } from "@outpost/provider-local";
import { describeConversationStore } from "@outpost/testkit";
import { codexConversationStore } from "../src/index.js";

// The kit's round trip and hostile ids, on a recorded codex session and the local provider.
describeConversationStore({
  store: codexConversationStore(),
  fixture: fileURLToPath(new URL("./fixtures/sessions/codex", import.meta.url)),
  provider: (home) => localProvider({ home }),
});
