import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { dockerProvider } from "@outpost/provider-docker";
import { describeConversationStore } from "@outpost/testkit";
import { TEST_IMAGE, describeGated, dockerGate } from "@outpost/testkit/gates";
import { claudeConversationStore } from "../src/index.js";

// The kit's round trip on a remote-placement provider: in Docker isolated mode the sandbox's workspace and home
// are no host folders, so everything goes through the lease. Each lease gets a root and home of its own
// (named after the kit's host folder), so the restore really moves the session to other paths.
describeGated("claude conversation store on Docker isolated", await dockerGate({ images: [TEST_IMAGE] }), () => {
  describeConversationStore({
    store: claudeConversationStore(),
    fixture: fileURLToPath(new URL("./fixtures/sessions/claude", import.meta.url)),
    provider: (home) => {
      const name = basename(dirname(home));
      return dockerProvider({ image: TEST_IMAGE, mode: "isolated", network: "none", root: `/work/${name}/repo`, home: `/home/${name}` });
    },
  });
});
