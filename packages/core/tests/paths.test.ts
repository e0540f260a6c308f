import { describe, expect, it } from "vitest";
import { normalizeRelativePath, resolveInside, isInside, assertTransportKey, assertTransportPrefix, isOutpostError } from "@outpost/core";

describe("normalizeRelativePath", () => {
  it("normalizes paths that stay inside", () => {
    expect(normalizeRelativePath("a/./b//c/")).toBe("a/b/c");
    expect(normalizeRelativePath("a/../b")).toBe("b");
    expect(normalizeRelativePath(".")).toBe("");
    expect(resolveInside("/root", "x/y")).toBe("/root/x/y");
  });

  it.each(["../x", "a/../../x", "/etc/passwd", "C:\\x", "a\0b", ".."])("refuses %j with code workspace", (path) => {
    try {
      normalizeRelativePath(path);
      expect.unreachable();
    } catch (error) {
      expect(isOutpostError(error, "workspace")).toBe(true);
    }
  });

  it("checks containment at path boundaries", () => {
    expect(isInside("/repo", "/repo/a")).toBe(true);
    expect(isInside("/repo", "/repo")).toBe(true);
    expect(isInside("/repo", "/repository")).toBe(false);
  });
});

describe("transport keys", () => {
  it("accepts relative keys", () => {
    expect(assertTransportKey("a/b.json")).toBe("a/b.json");
    expect(assertTransportPrefix("a/")).toBe("a/");
    expect(assertTransportPrefix("")).toBe("");
  });

  it.each(["", "/abs", "a//b", "../x", "a/./b", "a\\b", "a/"])("refuses %j with code configuration", (key) => {
    expect(() => assertTransportKey(key)).toThrow(expect.objectContaining({ code: "configuration" }));
  });
});
