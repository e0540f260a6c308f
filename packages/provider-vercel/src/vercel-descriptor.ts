import { DESCRIPTOR_SPECIFICATION_VERSION, type ProviderDescriptor } from "@outpost/core";
import { descriptorOptions } from "@outpost/plugin-utils";
import type { NetworkPolicy } from "@vercel/sandbox";
import { vercelCredentials, type VercelCreateParameters, type VercelProviderConfig } from "./vercel-provider-config.js";
import { vercelProvider } from "./vercel-provider.js";
import { removeVercelSandbox } from "./remove-vercel-sandbox.js";

/** How hosts (the outpost CLI, doctor) find and build this provider without knowing it by name. */
export const descriptor: ProviderDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "provider",
  name: "vercel",
  description: "runs the agent in a Vercel Sandbox microVM (@vercel/sandbox), a synchronized copy of the repository",
  placement: "remote",
  options: [
    { name: "image", description: "sandbox image (default: Vercel's universal image)" },
    { name: "runtime", description: "legacy runtime instead of an image (node24, python3.13…)" },
    { name: "vcpus", description: "virtual CPUs (memory is 2 GiB per vCPU)" },
    { name: "timeoutMs", description: "sandbox lifetime in milliseconds" },
    { name: "region", description: "region to run in" },
    { name: "network", description: "allow-all, deny-all, or comma-separated allowed domains" },
    { name: "root", description: "repository directory in the sandbox (default /vercel/sandbox)" },
    { name: "retain", description: "keep the sandbox stopped on release instead of deleting it" },
    { name: "sandbox", description: "name of an existing (retained) sandbox to reuse" },
    { name: "token", description: "Vercel access token", environment: "VERCEL_TOKEN" },
    { name: "teamId", description: "Vercel team id", environment: "VERCEL_TEAM_ID" },
    { name: "projectId", description: "Vercel project id", environment: "VERCEL_PROJECT_ID" },
    { name: "apiUrl", description: "Sandbox API base URL (a gateway, or the offline double)", environment: "OUTPOST_VERCEL_API_URL" },
  ],
  capabilities: ["live-input", "file-transfers", "network-policy", "resource-limits"],
  check: async () => {
    if (vercelCredentials({}) !== undefined)
      return { ok: true, detail: "credentials from VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID" };
    if (process.env.VERCEL_OIDC_TOKEN) return { ok: true, detail: "credentials from VERCEL_OIDC_TOKEN" };
    return {
      ok: false,
      detail: "no credentials: set VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID, or VERCEL_OIDC_TOKEN (`vercel env pull`)",
    };
  },
  createProvider: (options) => vercelProvider(vercelConfig(options)),
  // Credentials from the environment, as a host that cleans up has no options for this provider.
  removeSandbox: (id) => removeVercelSandbox(id),
};

function vercelConfig(options: Readonly<Record<string, unknown>>): VercelProviderConfig {
  const { text, number, flag } = descriptorOptions(options);
  const [image, runtime, region] = [text("image"), text("runtime"), text("region")];
  const [vcpus, timeout] = [number("vcpus"), number("timeoutMs")];
  const create = {
    ...(image ? { image } : {}),
    ...(runtime ? { runtime } : {}),
    ...(region ? { region } : {}),
    ...(vcpus ? { resources: { vcpus } } : {}),
    ...(timeout ? { timeout } : {}),
  } as VercelCreateParameters;
  const network = text("network");
  const networkPolicy: NetworkPolicy | undefined =
    network === undefined
      ? undefined
      : network === "allow-all" || network === "deny-all"
        ? network
        : {
            allow: network
              .split(",")
              .map((domain) => domain.trim())
              .filter((domain) => domain !== ""),
          };
  const [root, sandbox, token, teamId, projectId] = [text("root"), text("sandbox"), text("token"), text("teamId"), text("projectId")];
  const apiUrl = text("apiUrl");
  return {
    create,
    ...(networkPolicy ? { networkPolicy } : {}),
    ...(root ? { root } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(flag("retain") ? { retain: true } : {}),
    ...(token ? { token } : {}),
    ...(teamId ? { teamId } : {}),
    ...(projectId ? { projectId } : {}),
    ...(apiUrl ? { apiUrl } : {}),
  };
}
