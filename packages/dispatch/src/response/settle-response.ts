import { OutpostError } from "@outpost/core";
import type { ResponseAttempt, ResponseSpec } from "./response-spec.js";
import { checkResponse } from "./validate-response.js";
import { repairPrompt } from "./response-instructions.js";

export interface SettleResponseInput<T> {
  readonly spec: ResponseSpec<T>;
  readonly tag: string;
  readonly repairs: number;
  /** The final text of the brief's turn. */
  readonly text: string;
  /** Runs one correction turn in the same conversation and returns its final text. */
  readonly repair: (prompt: string, attempt: number) => Promise<string>;
}

export interface SettledResponse<T> {
  readonly value: T;
  /** Every rejected attempt before the accepted one (empty when the first answer was valid). */
  readonly attempts: readonly ResponseAttempt[];
}

/**
 * Validates the answer; while it is rejected and repairs remain, asks for a correction with the issues.
 * Fails with code `response` carrying every attempt's issues once the repairs are spent.
 */
export async function settleResponse<T>(input: SettleResponseInput<T>): Promise<SettledResponse<T>> {
  const attempts: ResponseAttempt[] = [];
  let text = input.text;
  for (let attempt = 0; ; attempt += 1) {
    const check = await checkResponse(text, input.spec, input.tag);
    if (check.ok) return { value: check.value, attempts };
    attempts.push({ attempt, issues: check.issues });
    if (attempt >= input.repairs) break;
    text = await input.repair(repairPrompt(input.tag, check.issues), attempt + 1);
  }
  const last = attempts[attempts.length - 1]!;
  const first = last.issues[0];
  throw new OutpostError(
    "response",
    `The agent's response was still invalid after ${input.repairs} correction turn${input.repairs === 1 ? "" : "s"}: ` +
      `${first?.path ? `${first.path}: ` : ""}${first?.message ?? "rejected"}${last.issues.length > 1 ? ` (and ${last.issues.length - 1} more)` : ""}. ` +
      `Every attempt's issues are in details.attempts; raise repairs, make the brief clearer or loosen the schema.`,
    { details: { tag: input.tag, repairs: input.repairs, attempts } },
  );
}
