import { isStandardSchema, type StandardSchemaV1 } from "./standard-schema.js";
import type { ResponseIssue, ResponseSpec } from "./response-spec.js";
import { extractResponse } from "./extract-response.js";

export type ResponseCheck<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly ResponseIssue[] };

/** Extracts the tagged value of the text and runs the spec's validator on it. Never throws. */
export async function checkResponse<T>(text: string, spec: ResponseSpec<T>, tag: string): Promise<ResponseCheck<T>> {
  const extracted = extractResponse(text, tag);
  if (!extracted.found) return { ok: false, issues: extracted.issues };
  return validateValue(extracted.value, spec.schema);
}

export async function validateValue<T>(value: unknown, schema: ResponseSpec<T>["schema"]): Promise<ResponseCheck<T>> {
  if (isStandardSchema(schema)) {
    try {
      const result = await schema["~standard"].validate(value);
      if (result.issues === undefined) return { ok: true, value: result.value };
      const issues = result.issues.map(toIssue);
      return { ok: false, issues: issues.length > 0 ? issues : [{ message: "The value was rejected without a reason." }] };
    } catch (error) {
      return { ok: false, issues: [{ message: `The validator failed: ${describe(error)}` }] };
    }
  }
  try {
    return { ok: true, value: await (schema as (value: unknown) => T | Promise<T>)(value) };
  } catch (error) {
    return { ok: false, issues: [{ message: describe(error) }] };
  }
}

function toIssue(issue: StandardSchemaV1.Issue): ResponseIssue {
  const segments = (issue.path ?? []).map((segment) => (typeof segment === "object" && segment !== null ? segment.key : segment));
  return segments.length > 0 ? { message: issue.message, path: segments.map(String).join(".") } : { message: issue.message };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
