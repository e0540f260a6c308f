import { DESCRIPTOR_SPECIFICATION_VERSION, type ProviderDescriptor } from "@outpost/core";
import { localProvider, LOCAL_PROVIDER_NAME } from "./local-provider.js";

/** How hosts (the outpost CLI, doctor) find and build this provider without knowing it by name. */
export const descriptor: ProviderDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "provider",
  name: LOCAL_PROVIDER_NAME,
  description: "runs the agent directly on this machine, in the worktree, with your home (no isolation)",
  placement: "host",
  options: [
    {
      name: "inheritEnvironment",
      description:
        "hand your whole environment (keys, tokens…) to the agent; default: only PATH, locale, terminal, proxies and the agent's own variables",
    },
  ],
  capabilities: ["live-input", "file-transfers"],
  check: () => Promise.resolve({ ok: true, detail: "host processes; nothing to install" }),
  createProvider: (options) => localProvider(options.inheritEnvironment === true ? { environment: { inherit: "all" } } : {}),
};
