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
});
