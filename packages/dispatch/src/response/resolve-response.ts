import { OutpostError } from "@outpost/core";
import { isStandardSchema } from "./standard-schema.js";
import { DEFAULT_RESPONSE_REPAIRS, DEFAULT_RESPONSE_TAG, type ResponseSpec } from "./response-spec.js";

export interface ResolvedResponse<T> {
  readonly spec: ResponseSpec<T>;
  readonly tag: string;
  readonly repairs: number;
}

const TAG = /^[A-Za-z][\w.-]{0,63}$/;

/**
 * Checks the `response` option before anything is allocated (code `configuration`): a validator, a plain
 * tag name, a non-negative number of repairs, one pass, and an agent that can resume when repairs may run.
 */
export function resolveResponse<T>(
  spec: ResponseSpec<T>,
  context: { readonly passes: number; readonly agentName: string; readonly resumable: boolean | undefined },
): ResolvedResponse<T> {
  if (!spec || typeof spec !== "object")
    throw configuration("response must be an object with a schema (a Standard Schema validator or a function).");
  if (typeof spec.schema !== "function" && !isStandardSchema(spec.schema))
    throw configuration(
      "response.schema must be a Standard Schema validator (zod, valibot, arktype…) or a function that returns the value or throws.",
    );
  const tag = spec.tag ?? DEFAULT_RESPONSE_TAG;
  if (typeof tag !== "string" || !TAG.test(tag))
    throw configuration(`response.tag must be a plain tag name (letters, digits, _ . -), got ${JSON.stringify(tag)}.`);
  const repairs = spec.repairs ?? DEFAULT_RESPONSE_REPAIRS;
  if (!Number.isInteger(repairs) || repairs < 0)
    throw configuration(`response.repairs must be a non-negative integer, got ${JSON.stringify(repairs)}.`);
  if (context.passes !== 1)
    throw configuration(`response needs passes: 1 (got ${context.passes}): the answer of one conversation is validated.`);
  if (repairs > 0 && context.resumable === false)
    throw configuration(
      `${context.agentName} cannot resume a conversation, so no correction turn can run. Set response.repairs to 0 or use an agent that can resume.`,
    );
  return { spec, tag, repairs };
}

function configuration(message: string): OutpostError {
  return new OutpostError("configuration", message);
}
