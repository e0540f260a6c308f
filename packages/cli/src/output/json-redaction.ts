import { redactionOf } from "../run/redact-flags.js";

/**
 * What `--json` prints passes through this: the `--redact` values and patterns, and the values of the credential
 * variables of the environment (the agent's key among them), as the dispatch redacts what it stores.
 */
export async function jsonRedaction(flags: readonly string[] | undefined): Promise<<T>(value: T) => T> {
  const { createRedactor, credentialValues } = await import("@outpost/dispatch");
  const redactor = createRedactor(flags?.length ? redactionOf(flags) : undefined);
  redactor.addCredentials(credentialValues(process.env as Record<string, string>));
  return (value) => redactor.value(value);
}
