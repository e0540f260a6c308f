import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import type { StandardSchemaV1 } from "@outpost/dispatch";
import { responseFromSchemaFile } from "../src/run/json-schema-response.js";

const directory = mkdtempSync(join(tmpdir(), "outpost-cli-json-schema-"));
function schemaFile(content: string): string {
  const path = join(directory, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, content);
  return path;
}

async function validate(schema: unknown, value: unknown): Promise<StandardSchemaV1.Result<unknown>> {
  const spec = await responseFromSchemaFile(schemaFile(JSON.stringify(schema)));
  return (spec.schema as StandardSchemaV1)["~standard"].validate(value);
}

const task = {
  type: "object",
  properties: {
    title: { type: "string", minLength: 1 },
    count: { type: "integer", minimum: 0 },
    tags: { type: "array", items: { enum: ["a", "b"] }, maxItems: 2 },
  },
  required: ["title", "count"],
  additionalProperties: false,
};

describe("responseFromSchemaFile", () => {
  it("shows the file's JSON Schema to the agent and accepts a matching value as is", async () => {
    const spec = await responseFromSchemaFile(schemaFile(JSON.stringify(task)));
    expect(spec.jsonSchema).toEqual(task);
    expect(await validate(task, { title: "t", count: 2, tags: ["a"] })).toEqual({ value: { title: "t", count: 2, tags: ["a"] } });
  });

  it("reports every issue with its path", async () => {
    const result = await validate(task, { title: "", count: 1.5, tags: ["a", "c", "b"], extra: true });
    expect(result.issues).toEqual([
      { message: "expected at least 1 characters", path: ["title"] },
      { message: 'expected "integer", got number', path: ["count"] },
      { message: "expected at most 2 items", path: ["tags"] },
      { message: 'expected one of ["a","b"]', path: ["tags", 1] },
      { message: "not allowed (additionalProperties is false)", path: ["extra"] },
    ]);
    expect((await validate(task, { title: "t" })).issues).toEqual([{ message: "required", path: ["count"] }]);
    expect((await validate(task, [])).issues).toEqual([{ message: 'expected "object", got array', path: [] }]);
  });

  it("refuses a missing file, bad JSON or a non-object schema with code configuration", async () => {
    for (const path of [join(directory, "missing.json"), schemaFile("{"), schemaFile("[1]"), schemaFile("null")]) {
      const error = await responseFromSchemaFile(path).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isOutpostError(error, "configuration")).toBe(true);
    }
  });

  it("checks the wider keyword set: $ref/$defs, combinators, if/then/else, pattern, exclusive bounds, multipleOf, prefixItems, uniqueItems, patternProperties", async () => {
    const schema = {
      $defs: { id: { type: "string", pattern: "^[A-Z]{2}-[0-9]+$" } },
      type: "object",
      properties: {
        id: { $ref: "#/$defs/id" },
        score: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        step: { multipleOf: 0.5 },
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false },
        tags: { type: "array", uniqueItems: true },
        kind: { oneOf: [{ const: "a" }, { const: "b" }] },
        either: { anyOf: [{ type: "string" }, { type: "null" }] },
        other: { not: { type: "string" } },
        all: { allOf: [{ minimum: 2 }, { maximum: 4 }] },
        shape: { if: { properties: { round: { const: true } } }, then: { required: ["radius"] }, else: { required: ["width"] } },
        extras: {
          type: "object",
          patternProperties: { "^x-": { type: "integer" } },
          additionalProperties: { type: "boolean" },
          maxProperties: 2,
        },
      },
    };
    const good = {
      id: "AB-12",
      score: 0.5,
      step: 1.5,
      pair: ["p", 1],
      tags: ["a", "b"],
      kind: "a",
      either: null,
      other: 3,
      all: 3,
      shape: { round: true, radius: 1 },
      extras: { "x-a": 1, flag: true },
    };
    expect(await validate(schema, good)).toEqual({ value: good });
    const bad = {
      id: "ab-12",
      score: 1,
      step: 1.2,
      pair: ["p", 1, "more"],
      tags: [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      kind: "c",
      either: 1,
      other: "s",
      all: 5,
      shape: { round: false },
      extras: { "x-a": "1", flag: "yes", third: true },
    };
    expect((await validate(schema, bad)).issues).toEqual([
      { message: "expected to match ^[A-Z]{2}-[0-9]+$", path: ["id"] },
      { message: "expected less than 1", path: ["score"] },
      { message: "expected a multiple of 0.5", path: ["step"] },
      { message: "no item allowed here (items is false)", path: ["pair", 2] },
      { message: "expected unique items", path: ["tags"] },
      { message: "matches 0 of oneOf, expected exactly 1", path: ["kind"] },
      { message: "matches none of anyOf", path: ["either"] },
      { message: "matches the schema under not", path: ["other"] },
      { message: "expected at most 4", path: ["all"] },
      { message: "required", path: ["shape", "width"] },
      { message: "expected at most 2 properties", path: ["extras"] },
      { message: 'expected "integer", got string', path: ["extras", "x-a"] },
      { message: 'expected "boolean", got string', path: ["extras", "flag"] },
    ]);
    // A reference that does not resolve is refused when the file is read (json-schema-formats.test.ts); one that loops is an issue.
    expect((await validate({ $defs: { loop: { $ref: "#/$defs/loop" } }, $ref: "#/$defs/loop" }, 1)).issues?.[0]?.message).toContain(
      "nests too deeply",
    );
  });
});
