import { DESCRIPTOR_SPECIFICATION_VERSION, type ProviderDescriptor } from "@outpost/core";
import { descriptorOptions } from "@outpost/plugin-utils";
import { daytonaCredentials, type DaytonaCreateParameters, type DaytonaProviderConfig } from "./daytona-provider-config.js";
import { daytonaProvider } from "./daytona-provider.js";
import { removeDaytonaSandbox } from "./remove-daytona-sandbox.js";

/** How hosts (the outpost CLI, doctor) find and build this provider without knowing it by name. */
export const descriptor: ProviderDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "provider",
  name: "daytona",
  description: "runs the agent in a Daytona sandbox (@daytonaio/sdk), a synchronized copy of the repository",
  placement: "remote",
  options: [
    { name: "snapshot", description: "snapshot to create the sandbox from (default: Daytona's default snapshot)" },
    { name: "image", description: "image to build the sandbox from instead of a snapshot" },
    { name: "cpu", description: "CPU cores (with an image)" },
    { name: "memory", description: "memory in GiB (with an image)" },
    { name: "autoStopMinutes", description: "minutes of inactivity before Daytona stops the sandbox (0: never)" },
    { name: "network", description: "block-all, or comma-separated CIDRs to allow" },
    { name: "root", description: "repository directory in the sandbox (default: the sandbox's working directory)" },
    { name: "retain", description: "keep the sandbox stopped on release instead of deleting it" },
    { name: "sandbox", description: "id or name of an existing (retained) sandbox to reuse" },
    { name: "apiKey", description: "Daytona API key", environment: "DAYTONA_API_KEY" },
    { name: "apiUrl", description: "Daytona API URL", environment: "DAYTONA_API_URL" },
    { name: "target", description: "Daytona target region", environment: "DAYTONA_TARGET" },
  ],
  capabilities: ["live-input", "file-transfers", "network-policy", "resource-limits"],
  check: async () => {
    const credentials = daytonaCredentials({});
    if (credentials.apiKey !== undefined) {
      return {
        ok: true,
        detail: `credentials from DAYTONA_API_KEY${credentials.apiUrl === undefined ? "" : `, API at ${credentials.apiUrl}`}`,
      };
    }
    if (process.env.DAYTONA_JWT_TOKEN && process.env.DAYTONA_ORGANIZATION_ID) {
      return { ok: true, detail: "credentials from DAYTONA_JWT_TOKEN and DAYTONA_ORGANIZATION_ID" };
    }
    return { ok: false, detail: "no credentials: set DAYTONA_API_KEY (and DAYTONA_API_URL for a self-hosted Daytona)" };
  },
  createProvider: (options) => daytonaProvider(daytonaConfig(options)),
  // Credentials from the environment, as a host that cleans up has no options for this provider.
  removeSandbox: (id) => removeDaytonaSandbox(id),
};

function daytonaConfig(options: Readonly<Record<string, unknown>>): DaytonaProviderConfig {
  const { text, number, flag } = descriptorOptions(options);
  const [snapshot, image] = [text("snapshot"), text("image")];
  const [cpu, memory, autoStop] = [number("cpu"), number("memory"), number("autoStopMinutes")];
  const resources = cpu || memory ? { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } : undefined;
  const create = {
    ...(image ? { image, ...(resources ? { resources } : {}) } : snapshot ? { snapshot } : {}),
    ...(autoStop === undefined ? {} : { autoStopInterval: autoStop }),
  } as DaytonaCreateParameters;
  const network = text("network");
  const [root, sandbox, apiKey, apiUrl, target] = [text("root"), text("sandbox"), text("apiKey"), text("apiUrl"), text("target")];
  return {
    create,
    ...(network === undefined ? {} : { network: network === "block-all" ? { blockAll: true } : { allowList: network } }),
    ...(root ? { root } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(flag("retain") ? { retain: true } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(apiUrl ? { apiUrl } : {}),
    ...(target ? { target } : {}),
  };
}
