import { fileURLToPath } from "node:url";
import type { SessionBundleProfile } from "@outpost/core";
import { dockerProvider } from "@outpost/provider-docker";
import { describeSessionBundleProfile } from "@outpost/testkit";
import { TEST_IMAGE, describeGated, dockerGate } from "@outpost/testkit/gates";
import { sessionBundleStore } from "../src/index.js";

// The session-bundle kit on the real engine in Docker containers: every step runs through `lease.invoke`.
const profile: SessionBundleProfile = {
  specificationVersion: "v1",
  format: "demo",
  root: { directory: ".demo" },
  sessions: "sessions",
  include: /^(state\.json|log\.jsonl|notes(\/.+)?)$/,
  exclude: /\.lock$/,
  required: ["state.json", "log.jsonl"],
  relocated: ["state.json", "log.jsonl", "notes"],
};
// The container user owns the host workspaces the kit creates, whoever runs the tests.
const user = { uid: process.getuid?.() ?? 1000, gid: process.getgid?.() ?? 1000 };

describeGated("session-bundle engine in Docker", await dockerGate({ images: [TEST_IMAGE] }), () => {
  describeSessionBundleProfile({
    profile,
    store: sessionBundleStore(profile),
    fixture: fileURLToPath(new URL("./fixtures/sessions/demo", import.meta.url)),
    provider: () => dockerProvider({ image: TEST_IMAGE, network: "none", user }),
  });
});
