import { OutpostError } from "@outpost/core";
import { Sandbox } from "@vercel/sandbox";
import { vercelFetch } from "./vercel-api-url.js";
import { mapVercelError } from "./map-vercel-error.js";
import { vercelCredentials, type VercelProviderConfig } from "./vercel-provider-config.js";

/**
 * Deletes a sandbox by the name its lease recorded, with the credentials of `config` or the environment; one
 * already gone (404, 410) counts as removed. For sandboxes a crashed dispatch or a killed queue attempt left.
 */
export async function removeVercelSandbox(name: string, config: VercelProviderConfig = {}): Promise<void> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(name)) {
    throw new OutpostError("configuration", `${JSON.stringify(name)} is not a Vercel sandbox name. Pass the name the lease recorded.`);
  }
  const fetch = vercelFetch(config);
  try {
    const sandbox = await Sandbox.get({ ...vercelCredentials(config), fetch, name });
    await sandbox.delete();
  } catch (error) {
    const status = (error as { response?: { status?: number } }).response?.status;
    if (status === 404 || status === 410) return;
    const failure = mapVercelError(error, `remove the Vercel sandbox ${name}`);
    throw new OutpostError(failure.code, `${failure.message} Delete it later from the Vercel dashboard or with the sandbox CLI.`, {
      cause: error,
      details: { ...failure.details, sandbox: name },
    });
  }
}
