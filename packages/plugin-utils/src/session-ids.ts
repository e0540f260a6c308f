import { OutpostError } from "@outpost/core";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Rule: a session id put on the command line of a CLI whose ids are UUIDs must be one (nothing an option
 * parser could read as a flag); anything else is `configuration`. `cli` names the CLI, `field` the option.
 */
export function uuidSessionId(cli: string, id: string, field: string): string {
  if (UUID.test(id)) return id;
  throw new OutpostError(
    "configuration",
    `${cli} session ids are UUIDs; ${field} ${JSON.stringify(id.slice(0, 80))} is not one. Pass the id from the turn's conversation event.`,
    { details: { field } },
  );
}
