import { expect } from "vitest";
import { isOutpostError, type OutpostError, type SandboxLease } from "@outpost/core";

/** The OutpostError `operation` fails with; the test fails when it succeeds or throws anything else. */
export async function outpostFailure(operation: Promise<unknown>): Promise<OutpostError> {
  const error = await operation.then(
    () => expect.fail("the operation succeeded"),
    (caught: unknown) => caught,
  );
  expect(isOutpostError(error), String(error)).toBe(true);
  return error as OutpostError;
}

/**
 * Starts a long command on `lease`, calls `vanish()` once it printed, and returns the error the command ends
 * with: how a sandbox that disappears mid-command reaches the caller.
 */
export async function failureWhenSandboxVanishes(lease: SandboxLease, vanish: () => Promise<void>): Promise<OutpostError> {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const command = lease.invoke({
    executable: "/bin/sh",
    arguments: ["-c", "echo started; sleep 60"],
    observe: (_channel, text) => text.includes("started") && started(),
  });
  // Handled from the start: the command may fail while the double is still removing the sandbox.
  const failed = outpostFailure(command);
  await running;
  await vanish();
  return failed;
}
