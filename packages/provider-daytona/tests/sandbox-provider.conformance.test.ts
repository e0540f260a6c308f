import { describeSandboxProvider } from "@outpost/testkit";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble, type DaytonaDouble } from "@outpost/provider-daytona/double";

// The SDK's real code paths against the offline API double (real processes in a temporary root per sandbox).
let double: DaytonaDouble | undefined;

describeSandboxProvider({
  name: "provider-daytona (API double)",
  create: async () => {
    double = await startDaytonaDouble();
    return {
      provider: daytonaProvider({ ...double.credentials, variables: { OUTPOST_KIT_PROVIDER: "from the provider ✓" } }),
      dispose: () => double!.close(),
    };
  },
});
