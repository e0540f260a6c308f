import { describeSandboxProvider } from "@outpost/testkit";
import { dockerProvider } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";

// Isolated placement on the busybox image: the workspace is copied in, nothing of the host is mounted.
describeSandboxProvider({
  name: "provider-docker (isolated, busybox)",
  ...(await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] })),
  create: async () => ({
    provider: dockerProvider({
      image: BUSYBOX_IMAGE,
      mode: "isolated",
      network: "none",
      variables: { OUTPOST_KIT_PROVIDER: "from the provider ✓" },
    }),
  }),
});
