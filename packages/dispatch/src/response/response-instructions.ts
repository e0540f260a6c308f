import { isStandardSchema } from "./standard-schema.js";
import type { ResponseIssue, ResponseSpec } from "./response-spec.js";

/** The JSON Schema of the expected value: given, or derived from a Standard JSON Schema validator; else undefined. */
export function responseJsonSchema(spec: ResponseSpec<unknown>): Readonly<Record<string, unknown>> | undefined {
  if (spec.jsonSchema) return spec.jsonSchema;
  if (!isStandardSchema(spec.schema)) return undefined;
  const converter = spec.schema["~standard"].jsonSchema;
  try {
    return converter?.output?.({ target: "draft-2020-12" });
  } catch {
    // A schema the library cannot express (a transform, a custom check) is described by the tag alone.
    return undefined;
  }
}

/** Appended to the brief: where to put the value, and its JSON Schema when known. */
export function responseInstructions(tag: string, jsonSchema: Readonly<Record<string, unknown>> | undefined): string {
  const lines = [
    "",
    "",
    "## Response format",
    `When you are done, end your final message with the result as JSON inside <${tag}></${tag}> tags, for example <${tag}>{"key": "value"}</${tag}>.`,
    `Only the last complete <${tag}> block is read.`,
  ];
  if (jsonSchema) lines.push("The JSON must match this JSON Schema:", "```json", JSON.stringify(jsonSchema, null, 2), "```");
  return lines.join("\n");
}

/** The prompt of a correction turn: what was wrong, and the format again. */
export function repairPrompt(tag: string, issues: readonly ResponseIssue[]): string {
  const listed = issues.map((issue) => `- ${issue.path ? `${issue.path}: ` : ""}${issue.message}`).join("\n");
  return `Your response could not be accepted:\n${listed}\n\nReply again with the corrected result as JSON inside <${tag}></${tag}> tags.`;
}
