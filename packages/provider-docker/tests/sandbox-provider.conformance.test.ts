import { describeSandboxProvider } from "@outpost/testkit";
import { dockerProvider } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { workspaceContext } from "./workspace-context.js";

// Mounted placement: the kit's workspace is bind-mounted at the lease root. Every capability is supported.
describeSandboxProvider({
  name: "provider-docker (mounted)",
  ...(await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] })),
  create: async () => ({
    provider: dockerProvider({ image: TEST_IMAGE, network: "none", variables: { OUTPOST_KIT_PROVIDER: "from the provider ✓" } }),
  }),
  context: workspaceContext,
});
