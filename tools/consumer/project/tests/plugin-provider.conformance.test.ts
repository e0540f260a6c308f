import { describeSandboxProvider } from "@outpost/testkit";
import { descriptor } from "outpost-provider-hostdir";

// The third-party provider (tools/consumer/fixtures), installed from its folder, through the installed kit.
describeSandboxProvider({
  name: "outpost-provider-hostdir",
  // The kit checks that provider variables reach every command, so the provider is given one.
  create: async () => ({ provider: await descriptor.createProvider({ tag: "kit", variables: { OUTPOST_KIT_PROVIDER: "set" } }) }),
});
