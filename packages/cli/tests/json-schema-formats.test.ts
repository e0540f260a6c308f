import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import type { StandardSchemaV1 } from "@outpost/dispatch";
import { responseFromSchemaFile } from "../src/run/json-schema-response.js";

const directory = mkdtempSync(join(tmpdir(), "outpost-cli-json-schema-formats-"));
function schemaFile(schema: unknown): string {
  const path = join(directory, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(schema));
  return path;
}

async function issues(schema: unknown, value: unknown): Promise<readonly StandardSchemaV1.Issue[]> {
  const spec = await responseFromSchemaFile(schemaFile(schema));
  const result = await (spec.schema as StandardSchemaV1)["~standard"].validate(value);
  return result.issues ?? [];
}

async function refusal(schema: unknown): Promise<Error> {
  const error = await responseFromSchemaFile(schemaFile(schema)).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isOutpostError(error, "configuration")) throw new Error(`expected a configuration error, got ${String(error)}`);
  return error;
}

/** For each format: values it accepts, values it refuses. */
const FORMATS: Record<string, { valid: string[]; invalid: string[] }> = {
  "date-time": {
    valid: ["2026-12-03T21:40:00Z", "2026-12-03t21:40:00.123+01:00", "1998-12-31T23:59:60Z", "1998-12-31T15:59:60-08:00"],
    invalid: ["2026-12-03 21:40:00Z", "2026-12-03T21:40:00", "2026-02-30T10:00:00Z", "2026-12-03T24:00:00Z", "2026-12-03T10:00:60Z"],
  },
  date: { valid: ["2024-02-29", "2026-12-31"], invalid: ["2026-02-29", "2026-13-01", "2026-1-01", "20261203", "1900-02-29"] },
  time: { valid: ["08:30:06Z", "23:59:59.5-05:30"], invalid: ["08:30:06", "8:30:06Z", "08:60:00Z", "08:30:06+24:00"] },
  email: {
    valid: ["joe.bloggs@example.com", "a+tag@sub.example.org", "x@[127.0.0.1]", "x@[IPv6:::1]"],
    invalid: ["joe", "@example.com", "joe@", ".joe@example.com", "jo..e@example.com", "joe@-example.com", "jo e@example.com"],
  },
  uri: {
    valid: ["https://example.com/a?b=c#d", "urn:isbn:0451450523", "mailto:joe@example.com", "file:///tmp/x%20y"],
    invalid: ["/relative/path", "example.com", "https://exa mple.com", "http://example.com/%zz", "1http://x", "https://x/<a>"],
  },
  uuid: {
    valid: ["01a23db0-0c6c-7400-8d16-9f7ad7d32088", "2EB8AA08-AA98-11EA-B4AA-73B441D16380"],
    invalid: ["01a23db00c6c74008d169f7ad7d32088", "01a23db0-0c6c-7400-8d16-9f7ad7d3208", "g1a23db0-0c6c-7400-8d16-9f7ad7d32088"],
  },
  ipv4: { valid: ["127.0.0.1", "255.255.255.255", "0.0.0.0"], invalid: ["256.0.0.1", "1.2.3", "01.2.3.4", "1.2.3.4.5", "a.b.c.d"] },
  ipv6: {
    valid: ["::1", "2001:db8::8a2e:370:7334", "::ffff:192.0.2.1"],
    invalid: ["12345::", "1:2:3:4:5:6:7:8:9", "fe80::1%eth0", "::1::"],
  },
  hostname: {
    valid: ["example.com", "a-b.c0", "localhost", `${"a".repeat(63)}.com`],
    invalid: ["-example.com", "example-.com", "ex_ample.com", `${"a".repeat(64)}.com`, "a..b", ""],
  },
  regex: { valid: ["^[a-z]+$", "\\d{2,}"], invalid: ["([a-z]", "*abc", "\\"] },
};

describe("--response JSON Schema: format", () => {
  for (const [format, { valid, invalid }] of Object.entries(FORMATS)) {
    it(`${format}: accepts well-formed values, refuses the others with the path and the format's name`, async () => {
      for (const value of valid) expect(await issues({ type: "string", format }, value), `${format} ${value}`).toEqual([]);
      for (const value of invalid) {
        expect(await issues({ type: "object", properties: { at: { format } } }, { at: value }), `${format} ${value}`).toEqual([
          { message: `expected a valid ${format} (format)`, path: ["at"] },
        ]);
      }
    });
  }

  it("applies to strings only, and an unknown format is an annotation", async () => {
    expect(await issues({ format: "email" }, 42)).toEqual([]);
    expect(await issues({ type: "string", format: "x-made-up" }, "anything")).toEqual([]);
  });
});

describe("--response JSON Schema: references stay in the file", () => {
  it("refuses a $ref to another document (any scheme, relative files, network paths) before anything runs", async () => {
    for (const reference of [
      "https://example.com/task.json",
      "http://127.0.0.1:9/x.json#/a",
      "task.json#/$defs/t",
      "//host/x",
      "urn:x:y",
    ]) {
      const error = await refusal({ type: "object", properties: { task: { items: [{ $ref: reference }] } } });
      expect(error.message).toContain(`$ref ${JSON.stringify(reference)} at /properties/task/items/0/$ref points at another document`);
      expect(error.message).toMatch(/fetches nothing/);
    }
  });

  it("refuses a local $ref that points at nothing; a $ref key inside const or enum is data", async () => {
    expect((await refusal({ $ref: "#/$defs/missing", $defs: {} })).message).toContain("points at nothing in the schema");
    expect((await refusal({ $ref: "#anchor" })).message).toContain("points at nothing");
    expect(await issues({ const: { $ref: "https://example.com" } }, { $ref: "https://example.com" })).toEqual([]);
    const schema = { $defs: { "a/b": { type: "integer" } }, properties: { n: { $ref: "#/$defs/a~1b" }, self: { $ref: "#" } } };
    expect(await issues(schema, { n: 1, self: {} })).toEqual([]);
    expect(await issues(schema, { n: "one" })).toEqual([{ message: 'expected "integer", got string', path: ["n"] }]);
  });
});
