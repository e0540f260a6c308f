import type { StandardSchemaV1 } from "@outpost/dispatch";
import { FORMAT_CHECKS } from "./json-schema-formats.js";
import { resolveLocalReference } from "./json-schema-references.js";

type JsonSchema = Readonly<Record<string, unknown>>;
type Issue = StandardSchemaV1.Issue;

/**
 * Checks a value against a JSON Schema (draft 2020-12 / 07 keywords a response contract uses): type, enum,
 * const, the numeric, string, array and object bounds, pattern, additionalProperties (false or a schema),
 * patternProperties, prefixItems, uniqueItems, allOf/anyOf/oneOf/not, if/then/else and local `$ref`s
 * (`#/$defs/…`, `#/definitions/…`), and the common `format`s (json-schema-formats.ts). References to other
 * documents are refused when the file is read (json-schema-references.ts): nothing is fetched.
 *
 * Kept hand-written after measuring the maintained alternative without code generation, @cfworker/json-schema
 * 4.1.6 (668 kB): a `$ref` loop in the user's schema crashes it (RangeError: call stack exceeded)
 * where this reports "nests too deeply"; it reports a missing property at the object, not at the property's
 * path, and each failure again on every enclosing keyword (8 issues for 4 faults in one test), so an answer's
 * correction turn would get noisier feedback; and it adds 18–43 ms to a fresh process's import. ajv compiles
 * schemas to code (new Function) and is larger still.
 */
export function checkJsonSchema(root: JsonSchema, value: unknown): Issue[] {
  const issues: Issue[] = [];
  check(root, root, value, [], issues, 0);
  return issues;
}

export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const same = (left: unknown, right: unknown): boolean => canonical(left) === canonical(right);
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isSchema(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

const MAX_DEPTH = 64;

/** Whether a value matches a subschema (for anyOf, oneOf, not, if), its issues kept aside. */
function matches(root: JsonSchema, schema: unknown, value: unknown, path: PropertyKey[], depth: number): boolean {
  if (typeof schema === "boolean") return schema;
  if (!isSchema(schema)) return true;
  const found: Issue[] = [];
  check(root, schema, value, path, found, depth + 1);
  return found.length === 0;
}

function check(root: JsonSchema, schema: JsonSchema, value: unknown, path: PropertyKey[], issues: Issue[], depth: number): void {
  const fail = (message: string, at: PropertyKey[] = path): void => void issues.push({ message, path: [...at] });
  if (depth > MAX_DEPTH) return fail("the schema nests too deeply (a reference cycle?)");
  if (typeof schema["$ref"] === "string") {
    const target = resolveLocalReference(root, schema["$ref"]);
    if (!target) fail(`cannot resolve $ref ${schema["$ref"]}`);
    else check(root, target, value, path, issues, depth + 1);
  }
  const type = schema["type"];
  if (type !== undefined) {
    const actual = typeOf(value);
    const allowed = Array.isArray(type) ? type : [type];
    if (!allowed.some((entry) => entry === actual || (entry === "number" && actual === "integer")))
      return fail(`expected ${JSON.stringify(type)}, got ${actual}`);
  }
  if (Array.isArray(schema["enum"]) && !schema["enum"].some((allowed) => same(allowed, value)))
    fail(`expected one of ${JSON.stringify(schema["enum"])}`);
  if ("const" in schema && !same(schema["const"], value)) fail(`expected ${JSON.stringify(schema["const"])}`);
  const sub = (candidate: unknown): boolean => matches(root, candidate, value, path, depth);
  if (Array.isArray(schema["allOf"]))
    for (const part of schema["allOf"]) if (isSchema(part)) check(root, part, value, path, issues, depth + 1);
  if (Array.isArray(schema["anyOf"]) && !schema["anyOf"].some(sub)) fail("matches none of anyOf");
  if (Array.isArray(schema["oneOf"])) {
    const matched = schema["oneOf"].filter(sub).length;
    if (matched !== 1) fail(`matches ${matched} of oneOf, expected exactly 1`);
  }
  if (isSchema(schema["not"]) && sub(schema["not"])) fail("matches the schema under not");
  if (isSchema(schema["if"])) {
    const branch = sub(schema["if"]) ? schema["then"] : schema["else"];
    if (isSchema(branch)) check(root, branch, value, path, issues, depth + 1);
  }
  if (typeof value === "number") checkNumber(schema, value, fail);
  if (typeof value === "string") checkString(schema, value, fail);
  if (Array.isArray(value)) checkArray(root, schema, value, path, issues, depth, fail);
  if (isSchema(value)) checkObject(root, schema, value, path, issues, depth, fail);
}

type Fail = (message: string, at?: PropertyKey[]) => void;

function checkNumber(schema: JsonSchema, value: number, fail: Fail): void {
  const bound = (key: string): number | undefined => (typeof schema[key] === "number" ? schema[key] : undefined);
  const [minimum, maximum, above, below, step] = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].map(bound);
  if (minimum !== undefined && value < minimum) fail(`expected at least ${minimum}`);
  if (maximum !== undefined && value > maximum) fail(`expected at most ${maximum}`);
  if (above !== undefined && value <= above) fail(`expected more than ${above}`);
  if (below !== undefined && value >= below) fail(`expected less than ${below}`);
  if (step !== undefined && step > 0 && Math.abs(value / step - Math.round(value / step)) > 1e-9) fail(`expected a multiple of ${step}`);
}

function checkString(schema: JsonSchema, value: string, fail: Fail): void {
  const length = [...value].length;
  if (typeof schema["minLength"] === "number" && length < schema["minLength"]) fail(`expected at least ${schema["minLength"]} characters`);
  if (typeof schema["maxLength"] === "number" && length > schema["maxLength"]) fail(`expected at most ${schema["maxLength"]} characters`);
  const format = typeof schema["format"] === "string" && Object.hasOwn(FORMAT_CHECKS, schema["format"]) ? schema["format"] : undefined;
  if (format !== undefined && !FORMAT_CHECKS[format]!(value)) fail(`expected a valid ${format} (format)`);
  if (typeof schema["pattern"] === "string") {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(schema["pattern"], "u");
    } catch {
      fail(`the schema's pattern ${JSON.stringify(schema["pattern"])} is not a valid regular expression`);
    }
    if (pattern && !pattern.test(value)) fail(`expected to match ${schema["pattern"]}`);
  }
}

function checkArray(
  root: JsonSchema,
  schema: JsonSchema,
  value: readonly unknown[],
  path: PropertyKey[],
  issues: Issue[],
  depth: number,
  fail: Fail,
): void {
  if (typeof schema["minItems"] === "number" && value.length < schema["minItems"]) fail(`expected at least ${schema["minItems"]} items`);
  if (typeof schema["maxItems"] === "number" && value.length > schema["maxItems"]) fail(`expected at most ${schema["maxItems"]} items`);
  const prefix = Array.isArray(schema["prefixItems"]) ? schema["prefixItems"] : [];
  value.forEach((item, index) => {
    const itemSchema = index < prefix.length ? prefix[index] : schema["items"];
    if (isSchema(itemSchema)) check(root, itemSchema, item, [...path, index], issues, depth + 1);
    else if (itemSchema === false) fail("no item allowed here (items is false)", [...path, index]);
  });
  if (schema["uniqueItems"] === true && new Set(value.map(canonical)).size !== value.length) fail("expected unique items");
}

function checkObject(
  root: JsonSchema,
  schema: JsonSchema,
  value: Readonly<Record<string, unknown>>,
  path: PropertyKey[],
  issues: Issue[],
  depth: number,
  fail: Fail,
): void {
  const properties = isSchema(schema["properties"]) ? schema["properties"] : {};
  const patterns = isSchema(schema["patternProperties"]) ? Object.entries(schema["patternProperties"]) : [];
  for (const name of Array.isArray(schema["required"]) ? schema["required"] : [])
    if (typeof name === "string" && !Object.hasOwn(value, name)) fail("required", [...path, name]);
  const count = Object.keys(value).length;
  if (typeof schema["minProperties"] === "number" && count < schema["minProperties"])
    fail(`expected at least ${schema["minProperties"]} properties`);
  if (typeof schema["maxProperties"] === "number" && count > schema["maxProperties"])
    fail(`expected at most ${schema["maxProperties"]} properties`);
  for (const [name, item] of Object.entries(value)) {
    const at = [...path, name];
    let known = false;
    if (Object.hasOwn(properties, name) && isSchema(properties[name])) {
      known = true;
      check(root, properties[name], item, at, issues, depth + 1);
    }
    for (const [pattern, itemSchema] of patterns) {
      if (!isSchema(itemSchema) || !safeTest(pattern, name)) continue;
      known = true;
      check(root, itemSchema, item, at, issues, depth + 1);
    }
    if (known) continue;
    const additional = schema["additionalProperties"];
    if (additional === false) fail("not allowed (additionalProperties is false)", at);
    else if (isSchema(additional)) check(root, additional, item, at, issues, depth + 1);
  }
}

function safeTest(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    return false;
  }
}
