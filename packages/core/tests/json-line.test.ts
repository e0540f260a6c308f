import { describe, expect, it } from "vitest";
import {
  isJsonObject,
  jsonNumber,
  jsonNumberField,
  jsonObject,
  jsonObjectField,
  jsonString,
  jsonStringField,
  lazyRawEvent,
  leadingJsonType,
  parseJsonLine,
} from "@outpost/core";

describe("parseJsonLine", () => {
  it("returns the object of an event line", () => {
    expect(parseJsonLine('{"type":"result","n":1}')).toEqual({ type: "result", n: 1 });
    expect(parseJsonLine(' \t{"a":1}\r')).toEqual({ a: 1 });
  });

  it("keeps an object behind a byte-order mark", () => {
    expect(parseJsonLine('\uFEFF{"session_id":"abc"}')).toEqual({ session_id: "abc" });
  });

  it("returns undefined for anything that is not one whole JSON object, without throwing", () => {
    const hostile = [
      "",
      " ",
      "not json",
      "{",
      '{"type":',
      "}{",
      "[1,2]",
      "42",
      "null",
      '"text"',
      "\u0000{}",
      "{".repeat(100_000),
      "[".repeat(200_000),
    ];
    for (const line of hostile) expect(parseJsonLine(line)).toBeUndefined();
  });

  it("does not let __proto__ in a line pollute prototypes", () => {
    const value = parseJsonLine('{"__proto__":{"polluted":true}}');
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(value && Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it("parses a 4 MB line whole", () => {
    const blob = "y".repeat(4 * 1024 * 1024);
    expect(parseJsonLine(`{"blob":"${blob}"}`)?.["blob"]).toHaveLength(blob.length);
  });
});

describe("leadingJsonType", () => {
  it("reads the type of a line written type-first", () => {
    expect(leadingJsonType('{"type":"session.start","data":{}}')).toBe("session.start");
    expect(leadingJsonType('{"type":""}')).toBe("");
  });

  it("gives up (undefined) on every other shape so the caller parses fully", () => {
    for (const line of ['{ "type":"a"}', '{"data":1,"type":"a"}', '{"type":"unterminated', '{"type":"esc\\"aped"}', "", "type"]) {
      expect(leadingJsonType(line)).toBeUndefined();
    }
  });
});

describe("lazyRawEvent", () => {
  it("is a raw event whose value is parsed on first access and cached", () => {
    const event = lazyRawEvent('{"type":"x","n":[1]}');
    expect(event.type).toBe("raw");
    const first = event.type === "raw" ? event.value : undefined;
    const second = event.type === "raw" ? event.value : undefined;
    expect(first).toEqual({ type: "x", n: [1] });
    expect(second).toBe(first);
    expect(event).toEqual({ type: "raw", line: '{"type":"x","n":[1]}', value: { type: "x", n: [1] } });
  });

  it("has an undefined value for a line that is not an object", () => {
    const event = lazyRawEvent("{truncated");
    expect(event).toMatchObject({ type: "raw", line: "{truncated" });
    expect(event.type === "raw" && event.value).toBeUndefined();
  });
});

describe("field readers", () => {
  const value = { o: { a: 1 }, s: "x", n: 3, big: 1e308, arr: [1], nul: null };

  it("return the field only when it has the asked type", () => {
    expect(jsonObjectField(value, "o")).toEqual({ a: 1 });
    expect(jsonObjectField(value, "arr")).toBeUndefined();
    expect(jsonObjectField(value, "nul")).toBeUndefined();
    expect(jsonObjectField(undefined, "o")).toBeUndefined();
    expect(jsonStringField(value, "s")).toBe("x");
    expect(jsonStringField(value, "n")).toBeUndefined();
    expect(jsonNumberField(value, "n")).toBe(3);
    expect(jsonNumberField(value, "s")).toBeUndefined();
    expect(jsonNumberField(undefined, "n")).toBeUndefined();
  });

  it("coerce nothing and never throw on hostile values", () => {
    expect(isJsonObject([])).toBe(false);
    expect(isJsonObject(null)).toBe(false);
    expect(isJsonObject({})).toBe(true);
    expect(jsonObject(5)).toEqual({});
    expect(jsonObject(value.o)).toBe(value.o);
    expect(jsonString(5)).toBeUndefined();
    expect(jsonNumber("5")).toBeUndefined();
    expect(jsonNumber(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(jsonNumber(Number.NaN)).toBeUndefined();
  });
});
