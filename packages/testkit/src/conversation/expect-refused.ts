import { isOutpostError, type OutpostError } from "@outpost/core";

/** Runs `call`, which must fail with an OutpostError; returns it. `what` names the call in the kit's message. */
export async function expectRefused(what: string, call: () => unknown): Promise<OutpostError> {
  const outcome = await Promise.resolve()
    .then(call)
    .then(
      () => undefined,
      (error: unknown) => error ?? new Error("undefined was thrown"),
    );
  if (outcome === undefined) throw new Error(`${what} succeeded; it must be refused`);
  if (!isOutpostError(outcome)) throw new Error(`${what} failed without an OutpostError: ${String(outcome)}`);
  return outcome;
}

/** Runs `call`: an OutpostError is a refusal (returned), success is undefined, any other failure is a kit failure. */
export async function refusedOrDone(what: string, call: () => Promise<unknown>): Promise<OutpostError | undefined> {
  try {
    await call();
    return undefined;
  } catch (error) {
    if (isOutpostError(error)) return error;
    throw new Error(`${what} failed without an OutpostError: ${String(error)}`, { cause: error });
  }
}
