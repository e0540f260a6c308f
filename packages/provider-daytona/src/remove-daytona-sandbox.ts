import { OutpostError } from "@outpost/core";
import { Daytona } from "@daytonaio/sdk";
import { mapDaytonaError } from "./map-daytona-error.js";
import { daytonaCredentials, type DaytonaProviderConfig } from "./daytona-provider-config.js";

/**
 * Deletes a sandbox by the id its lease recorded, with the credentials of `config` or the environment; one
 * already gone (404) counts as removed. For sandboxes a crashed dispatch or a killed queue attempt left.
 */
export async function removeDaytonaSandbox(id: string, config: DaytonaProviderConfig = {}): Promise<void> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(id)) {
    throw new OutpostError("configuration", `${JSON.stringify(id)} is not a Daytona sandbox id. Pass the id the lease recorded.`);
  }
  // Polling instead of the event socket: nothing may keep the process alive afterwards.
  const daytona = new Daytona({ ...daytonaCredentials(config), useDeprecatedPolling: true });
  try {
    const sandbox = await daytona.get(id);
    await sandbox.delete();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return;
    const failure = mapDaytonaError(error, `remove the Daytona sandbox ${id}`);
    throw new OutpostError(failure.code, `${failure.message} Delete it later from the Daytona dashboard or CLI.`, {
      cause: error,
      details: { ...failure.details, sandbox: id },
    });
  }
}
