import { fileURLToPath } from "node:url";
import { localProvider } from "@outpost/provider-local";
import { describeSessionBundleProfile } from "@outpost/testkit";
import { kimiCliSessionProfile, kimiConversationStore } from "../src/index.js";

// The kit's round trip and hostile layouts on a session folder made from the older Kimi CLI's public layout
// (`~/.kimi/sessions/<md5 of the work dir>/<id>/`), through the store that picks the layout from the home.
describeSessionBundleProfile({
  profile: kimiCliSessionProfile,
  store: kimiConversationStore({ layout: "kimi-cli" }),
  fixture: fileURLToPath(new URL("./fixtures/sessions/kimi-cli", import.meta.url)),
  provider: (home) => localProvider({ home }),
});
