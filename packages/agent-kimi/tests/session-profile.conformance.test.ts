import { fileURLToPath } from "node:url";
import { localProvider } from "@outpost/provider-local";
import { describeSessionBundleProfile } from "@outpost/testkit";
import { kimiConversationStore, kimiSessionProfile } from "../src/index.js";

// The kit's round trip and hostile layouts, on a recorded Kimi Code session (bucketed) and the local provider.
describeSessionBundleProfile({
  profile: kimiSessionProfile,
  store: kimiConversationStore(),
  fixture: fileURLToPath(new URL("./fixtures/sessions/kimi", import.meta.url)),
  provider: (home) => localProvider({ home }),
});
