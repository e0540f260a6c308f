import { readFile } from "node:fs/promises";
import { OutpostError } from "@outpost/core";
import type { ResponseSpec, StandardSchemaV1 } from "@outpost/dispatch";
import { checkJsonSchema, isSchema } from "./json-schema-check.js";
import { assertLocalReferences } from "./json-schema-references.js";

/**
 * `outpost run --response <schema.json>`: the file's JSON Schema is shown to the agent and checks its answer.
 * The check covers the keywords a response contract uses, with the common formats (see json-schema-check.ts);
 * a `$ref` to another document is refused here (code `configuration`): nothing is fetched at run time.
 */
export async function responseFromSchemaFile(path: string): Promise<ResponseSpec<unknown>> {
  let schema: unknown;
  try {
    schema = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new OutpostError(
      "configuration",
      `--response ${path}: ${error instanceof Error ? error.message : String(error)}. Pass a file holding a JSON Schema object.`,
      { cause: error, details: { path } },
    );
  }
  if (!isSchema(schema))
    throw new OutpostError("configuration", `--response ${path} does not hold a JSON Schema object. Pass e.g. {"type":"object"}.`, {
      details: { path },
    });
  assertLocalReferences(schema, path);
  const validator: StandardSchemaV1<unknown, unknown> = {
    "~standard": {
      version: 1,
      vendor: "outpost-json-schema",
      validate: (value) => {
        const issues = checkJsonSchema(schema, value);
        return issues.length === 0 ? { value } : { issues };
      },
    },
  };
  return { schema: validator, jsonSchema: schema };
}
