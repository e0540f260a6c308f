import { describeSandboxProvider } from "@outpost/testkit";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble, type DaytonaDouble } from "@outpost/cloud-doubles/daytona";

// The SDK's real code paths against the offline API double (real processes in a temporary root per sandbox),
// which labels output line by line, cuts frames right after markers, and here also cuts every log stream
// after a second, as a flaky network would: the kit's output checks must hold all the same.
let double: DaytonaDouble | undefined;

describeSandboxProvider({
  name: "provider-daytona (API double)",
  create: async () => {
    double = await startDaytonaDouble({ dropLogStreamsAfterMs: 1_000 });
    return {
      provider: daytonaProvider({ ...double.credentials, variables: { OUTPOST_KIT_PROVIDER: "from the provider ✓" } }),
      dispose: () => double!.close(),
    };
  },
});
