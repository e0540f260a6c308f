import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { z } from "zod";
import { isOutpostError } from "@outpost/core";
import { extractResponse } from "../src/response/extract-response.js";
import { checkResponse } from "../src/response/validate-response.js";
import { repairPrompt, responseInstructions, responseJsonSchema } from "../src/response/response-instructions.js";
import { settleResponse } from "../src/response/settle-response.js";
import { resolveResponse } from "../src/response/resolve-response.js";

const zodSchema = z.object({ title: z.string(), count: z.number().int() });
const valibotSchema = v.object({ title: v.string(), count: v.number() });

describe("extractResponse", () => {
  it("reads the last complete block, bare or fenced, and ignores an unclosed one after it", () => {
    const text = 'first <response>{"a":1}</response> then\n<response>\n```json\n{"a":2}\n```\n</response> and <response>{"a":3}';
    expect(extractResponse(text, "response")).toEqual({ found: true, value: { a: 2 } });
    expect(extractResponse("<r>[1, 2]</r>", "r")).toEqual({ found: true, value: [1, 2] });
  });

  it("names what is wrong: no block, an empty block, content that is not JSON", () => {
    const messages = ["no tags here", "<response> </response>", "<response>{title: x}</response>"].map((text) => {
      const extracted = extractResponse(text, "response");
      return extracted.found ? "" : extracted.issues[0]!.message;
    });
    expect(messages[0]).toMatch(/No complete <response>…<\/response> block/);
    expect(messages[1]).toMatch(/is empty/);
    expect(messages[2]).toMatch(/not valid JSON/);
  });
});

describe("checkResponse", () => {
  for (const [name, schema] of [
    ["zod", zodSchema],
    ["valibot", valibotSchema],
  ] as const) {
    it(`${name}: accepts a valid value and reports issues with their paths`, async () => {
      expect(await checkResponse('<response>{"title":"t","count":2}</response>', { schema }, "response")).toEqual({
        ok: true,
        value: { title: "t", count: 2 },
      });
      const rejected = await checkResponse('<response>{"title":"t","count":"2"}</response>', { schema }, "response");
      expect(rejected.ok).toBe(false);
      if (!rejected.ok)
        expect(rejected.issues).toEqual([expect.objectContaining({ path: "count", message: expect.any(String) as string })]);
    });
  }

  it("a plain function: its return value is the value, what it throws is the issue", async () => {
    const schema = (value: unknown): number => {
      if (typeof value !== "number") throw new Error("expected a number");
      return value * 2;
    };
    expect(await checkResponse("<response>21</response>", { schema }, "response")).toEqual({ ok: true, value: 42 });
    expect(await checkResponse('<response>"x"</response>', { schema }, "response")).toEqual({
      ok: false,
      issues: [{ message: "expected a number" }],
    });
  });
});

describe("instructions", () => {
  it("derive the JSON Schema from zod, not from valibot (which offers none), and prefer a given one", () => {
    expect(responseJsonSchema({ schema: zodSchema })).toMatchObject({ type: "object", required: ["title", "count"] });
    expect(responseJsonSchema({ schema: valibotSchema })).toBeUndefined();
    expect(responseJsonSchema({ schema: valibotSchema, jsonSchema: { type: "object" } })).toEqual({ type: "object" });
    const text = responseInstructions("answer", responseJsonSchema({ schema: zodSchema }));
    expect(text).toContain("<answer></answer>");
    expect(text).toContain('"required": [');
    expect(repairPrompt("answer", [{ path: "count", message: "bad" }])).toContain("- count: bad");
  });
});

describe("settleResponse", () => {
  it("valid at once: no repair turn runs", async () => {
    const repairs: string[] = [];
    const settled = await settleResponse({
      spec: { schema: zodSchema },
      tag: "response",
      repairs: 2,
      text: '<response>{"title":"a","count":1}</response>',
      repair: (prompt) => Promise.resolve(String(repairs.push(prompt))),
    });
    expect(settled).toEqual({ value: { title: "a", count: 1 }, attempts: [] });
    expect(repairs).toEqual([]);
  });

  it("valid after one repair: the correction prompt carries the issues", async () => {
    const prompts: string[] = [];
    const settled = await settleResponse({
      spec: { schema: valibotSchema },
      tag: "response",
      repairs: 2,
      text: '<response>{"title":"a"}</response>',
      repair: (prompt) => {
        prompts.push(prompt);
        return Promise.resolve('<response>{"title":"a","count":3}</response>');
      },
    });
    expect(settled.value).toEqual({ title: "a", count: 3 });
    expect(settled.attempts).toHaveLength(1);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatch(/count/);
  });

  it("never valid: code response with every attempt's issues", async () => {
    const failure: unknown = await settleResponse({
      spec: { schema: zodSchema },
      tag: "response",
      repairs: 2,
      text: "no block",
      repair: (_prompt, attempt) => Promise.resolve(attempt === 1 ? "<response>{oops}</response>" : '<response>{"title":1}</response>'),
    }).catch((error: unknown) => error);
    if (!isOutpostError(failure, "response")) throw new Error("expected a response failure");
    const attempts = failure.details.attempts as { attempt: number; issues: { message: string; path?: string }[] }[];
    expect(attempts.map((attempt) => attempt.attempt)).toEqual([0, 1, 2]);
    expect(attempts[0]!.issues[0]!.message).toMatch(/No complete/);
    expect(attempts[1]!.issues[0]!.message).toMatch(/not valid JSON/);
    expect(attempts[2]!.issues.map((issue) => issue.path).sort()).toEqual(["count", "title"]);
    expect(failure.message).toMatch(/after 2 correction turns/);
  });
});

describe("resolveResponse", () => {
  const context = { passes: 1, agentName: "claude", resumable: true };
  it("applies defaults and refuses what cannot work, before anything is allocated", () => {
    expect(resolveResponse({ schema: zodSchema }, context)).toMatchObject({ tag: "response", repairs: 1 });
    const refused = [
      () => resolveResponse({ schema: {} as never }, context),
      () => resolveResponse({ schema: zodSchema, tag: "a b" }, context),
      () => resolveResponse({ schema: zodSchema, repairs: -1 }, context),
      () => resolveResponse({ schema: zodSchema }, { ...context, passes: 2 }),
      () => resolveResponse({ schema: zodSchema }, { ...context, resumable: false }),
    ];
    for (const attempt of refused) expect(attempt).toThrow(expect.objectContaining({ code: "configuration" }) as Error);
    expect(resolveResponse({ schema: zodSchema, repairs: 0 }, { ...context, resumable: false }).repairs).toBe(0);
  });
});
