import { fileURLToPath } from "node:url";
import { kimiConversationStore, kimiSessionProfile } from "@outpost/agent-kimi";
import { localProvider } from "@outpost/provider-local";
import { describeSessionBundleProfile } from "@outpost/testkit";

// Kimi Code cannot be installed here (not on npm), so its conversations are checked without the CLI: the
// installed store captures and restores a session laid out as Kimi Code writes it (copied from
// packages/agent-kimi/tests/fixtures, constructed from its documentation), through the installed kit.
describeSessionBundleProfile({
  profile: kimiSessionProfile,
  store: kimiConversationStore(),
  fixture: fileURLToPath(new URL("./fixtures/kimi-session", import.meta.url)),
  provider: (home) => localProvider({ home }),
});
