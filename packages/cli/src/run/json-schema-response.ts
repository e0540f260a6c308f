import { readFile } from "node:fs/promises";
import { OutpostError } from "@outpost/core";
import type { ResponseSpec, StandardSchemaV1 } from "@outpost/dispatch";

type JsonSchema = Readonly<Record<string, unknown>>;
type Issue = StandardSchemaV1.Issue;

/**
 * `outpost run --response <schema.json>`: the file's JSON Schema is shown to the agent and checks its answer.
 * The check covers the keywords a response contract needs (type, properties, required, additionalProperties,
 * items, enum, const, minimum/maximum, minLength/maxLength, minItems/maxItems); other keywords are not checked.
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
  const validator: StandardSchemaV1<unknown, unknown> = {
    "~standard": {
      version: 1,
      vendor: "outpost-json-schema",
      validate: (value) => {
        const issues: Issue[] = [];
        check(schema, value, [], issues);
        return issues.length === 0 ? { value } : { issues };
      },
    },
  };
  return { schema: validator, jsonSchema: schema };
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(expected: unknown, value: unknown): boolean {
  const actual = typeOf(value);
  const allowed = Array.isArray(expected) ? expected : [expected];
  return allowed.some((type) => type === actual || (type === "number" && actual === "integer"));
}

function check(schema: JsonSchema, value: unknown, path: PropertyKey[], issues: Issue[]): void {
  const fail = (message: string): void => void issues.push({ message, path: [...path] });
  if (schema["type"] !== undefined && !matchesType(schema["type"], value)) {
    fail(`expected ${JSON.stringify(schema["type"])}, got ${typeOf(value)}`);
    return;
  }
  if (Array.isArray(schema["enum"]) && !schema["enum"].some((allowed) => JSON.stringify(allowed) === JSON.stringify(value)))
    fail(`expected one of ${JSON.stringify(schema["enum"])}`);
  if ("const" in schema && JSON.stringify(schema["const"]) !== JSON.stringify(value)) fail(`expected ${JSON.stringify(schema["const"])}`);
  if (typeof value === "number") {
    if (typeof schema["minimum"] === "number" && value < schema["minimum"]) fail(`expected at least ${schema["minimum"]}`);
    if (typeof schema["maximum"] === "number" && value > schema["maximum"]) fail(`expected at most ${schema["maximum"]}`);
  }
  if (typeof value === "string") {
    if (typeof schema["minLength"] === "number" && value.length < schema["minLength"])
      fail(`expected at least ${schema["minLength"]} characters`);
    if (typeof schema["maxLength"] === "number" && value.length > schema["maxLength"])
      fail(`expected at most ${schema["maxLength"]} characters`);
  }
  if (Array.isArray(value)) {
    if (typeof schema["minItems"] === "number" && value.length < schema["minItems"]) fail(`expected at least ${schema["minItems"]} items`);
    if (typeof schema["maxItems"] === "number" && value.length > schema["maxItems"]) fail(`expected at most ${schema["maxItems"]} items`);
    const items = schema["items"];
    if (isSchema(items)) value.forEach((item, index) => check(items, item, [...path, index], issues));
  }
  if (isSchema(value) && typeOf(value) === "object") checkObject(schema, value, path, issues);
}

function checkObject(schema: JsonSchema, value: Readonly<Record<string, unknown>>, path: PropertyKey[], issues: Issue[]): void {
  const properties = isSchema(schema["properties"]) ? schema["properties"] : {};
  for (const name of Array.isArray(schema["required"]) ? schema["required"] : []) {
    if (typeof name === "string" && !Object.hasOwn(value, name)) issues.push({ message: "required", path: [...path, name] });
  }
  for (const [name, item] of Object.entries(value)) {
    const property = properties[name];
    if (isSchema(property)) check(property, item, [...path, name], issues);
    else if (schema["additionalProperties"] === false)
      issues.push({ message: "not allowed (additionalProperties is false)", path: [...path, name] });
  }
}
