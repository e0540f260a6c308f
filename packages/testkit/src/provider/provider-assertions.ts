import assert from "node:assert/strict";
import { isOutpostError } from "@outpost/core";
import type { OutpostError, OutpostErrorCode } from "@outpost/core";

/** Awaits `promise`, which must reject with an OutpostError of `code` whose message is actionable. */
export async function expectOutpostError(promise: Promise<unknown>, code: OutpostErrorCode, what: string): Promise<OutpostError> {
  let outcome: unknown;
  try {
    await promise;
  } catch (error) {
    outcome = error;
  }
  assert.ok(outcome !== undefined, `${what}: expected a rejection with code "${code}", but it resolved`);
  assert.ok(isOutpostError(outcome), `${what}: expected an OutpostError with code "${code}", got ${describe(outcome)}`);
  assert.equal(outcome.code, code, `${what}: expected code "${code}", got "${outcome.code}" (${outcome.message})`);
  assert.ok(outcome.message.trim().length >= 20, `${what}: the error message is too short to act on: ${JSON.stringify(outcome.message)}`);
  return outcome;
}

/** Resolves within `ms` or fails with `what`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new assert.AssertionError({ message: `${what}: still pending after ${ms} ms` })), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return JSON.stringify(value);
}
