import { describeHostileTrees } from "@outpost/testkit";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/provider-daytona/double";

// The host tree and the sandbox tree are both hostile: the kit's class of escapes, against the API double.
describeHostileTrees({
  name: "provider-daytona (API double)",
  create: async () => {
    const double = await startDaytonaDouble();
    return { provider: daytonaProvider(double.credentials), dispose: () => double.close() };
  },
});
