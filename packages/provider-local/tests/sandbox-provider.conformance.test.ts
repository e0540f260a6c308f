import { describeSandboxProvider } from "@outpost/testkit";
import { localProvider } from "@outpost/provider-local";

// The whole provider suite: every capability is supported, so nothing is declared unsupported.
describeSandboxProvider({
  name: "provider-local",
  create: async () => ({ provider: localProvider({ home: "private", variables: { OUTPOST_KIT_PROVIDER: "from the provider ✓" } }) }),
});
