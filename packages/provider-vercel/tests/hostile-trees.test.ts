import { describeHostileTrees } from "@outpost/testkit";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble } from "@outpost/provider-vercel/double";

// The host tree and the sandbox tree are both hostile: the kit's class of escapes, against the API double.
describeHostileTrees({
  name: "provider-vercel (API double)",
  create: async () => {
    const double = await startVercelDouble();
    return { provider: vercelProvider({ ...double.credentials, fetch: double.fetch }), dispose: () => double.close() };
  },
});
