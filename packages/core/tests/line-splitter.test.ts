import { describe, expect, it } from "vitest";
import { LineSplitter, classifyFailure, addUsage, type FailureRule } from "@outpost/core";

describe("LineSplitter", () => {
  it("joins a line split across chunks and strips CR", () => {
    const splitter = new LineSplitter();
    expect(splitter.push('{"a":')).toEqual([]);
    expect(splitter.push('1}\r\n{"b"')).toEqual(['{"a":1}']);
    expect(splitter.push(":2}\n\n")).toEqual(['{"b":2}', ""]);
    expect(splitter.push("tail")).toEqual([]);
    expect(splitter.flush()).toEqual(["tail"]);
    expect(splitter.flush()).toEqual([]);
  });
});

describe("classifyFailure", () => {
  const rules: FailureRule[] = [
    { id: "rate", classification: "quota", pattern: /rate limit/gi, cliVersion: "1.0.0" },
    { id: "down", classification: "unavailable", pattern: /overloaded/i, cliVersion: "1.0.0" },
  ];
  it("returns the first matching rule, even for global patterns used twice", () => {
    expect(classifyFailure(rules, "Rate limit reached")?.rule.id).toBe("rate");
    expect(classifyFailure(rules, "Rate limit reached")?.classification).toBe("quota");
    expect(classifyFailure(rules, "API overloaded")?.classification).toBe("unavailable");
    expect(classifyFailure(rules, "syntax error")).toBeUndefined();
  });
});

describe("addUsage", () => {
  it("adds present counters and leaves absent ones absent", () => {
    expect(addUsage({ inputTokens: 1 }, { inputTokens: 2, outputTokens: 3 })).toEqual({ inputTokens: 3, outputTokens: 3 });
  });
});

describe("LineSplitter on long lines", () => {
  it("reassembles an 8 MB line fed in 64-byte chunks, and a CR split from its LF", () => {
    const splitter = new LineSplitter();
    const line = "x".repeat(8 * 1024 * 1024);
    const out: string[] = [];
    for (let offset = 0; offset < line.length; offset += 64) out.push(...splitter.push(line.slice(offset, offset + 64)));
    out.push(...splitter.push("\r"), ...splitter.push("\nnext\n"));
    expect(out).toHaveLength(2);
    expect(out[0]).toHaveLength(line.length);
    expect(out[1]).toBe("next");
  });
});
