import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isOutpostError, type OutpostError } from "@outpost/core";
import { scriptAgent } from "@outpost/testkit/script-agent";

/** Shared by the workspace tests: a script agent running on the host, with its own directory. */
export function hostScriptAgent(): (behaviour: Record<string, string>) => ReturnType<typeof scriptAgent> {
  const directory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
  return (behaviour) => scriptAgent({ directory, behaviour });
}

/** The OutpostError a dispatch (or workspace call) failed with; a success or another error fails the test. */
export async function outpostFailure(promise: Promise<unknown>): Promise<OutpostError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isOutpostError(error)) throw new Error(`expected an OutpostError, got ${String(error)}`);
  return error;
}
