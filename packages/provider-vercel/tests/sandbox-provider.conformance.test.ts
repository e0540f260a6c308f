import { describeSandboxProvider } from "@outpost/testkit";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble, type VercelDouble } from "@outpost/cloud-doubles/vercel";

// The SDK's real code paths against the offline API double (real processes in a temporary root per sandbox).
let double: VercelDouble | undefined;

describeSandboxProvider({
  name: "provider-vercel (API double)",
  create: async () => {
    double = await startVercelDouble();
    return {
      provider: vercelProvider({ ...double.credentials, fetch: double.fetch, variables: { OUTPOST_KIT_PROVIDER: "from the provider ✓" } }),
      dispose: () => double!.close(),
    };
  },
});
