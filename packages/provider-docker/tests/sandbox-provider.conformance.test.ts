import { describeSandboxProvider } from "@outpost/testkit";
import { dockerProvider } from "@outpost/provider-docker";
import { TEST_IMAGE, dockerGate } from "./docker-gate.js";
import { workspaceContext } from "./workspace-context.js";

// Mounted placement: the kit's workspace is bind-mounted at the lease root. Every capability is supported.
describeSandboxProvider({
  name: "provider-docker (mounted)",
  ...(await dockerGate()),
  create: async () => ({ provider: dockerProvider({ image: TEST_IMAGE, network: "none", variables: { OUTPOST_KIT_PROVIDER: "from the provider ✓" } }) }),
  context: workspaceContext,
});
