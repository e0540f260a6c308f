import { fileURLToPath } from "node:url";
import { localProvider } from "@outpost/provider-local";
import { describeSessionBundleProfile } from "@outpost/testkit";
import { copilotConversationStore, copilotSessionProfile } from "../src/index.js";

// The kit's round trip and hostile layouts, on a recorded Copilot CLI session and the local provider.
describeSessionBundleProfile({
  profile: copilotSessionProfile,
  store: copilotConversationStore(),
  fixture: fileURLToPath(new URL("./fixtures/sessions/copilot", import.meta.url)),
  provider: (home) => localProvider({ home }),
});
