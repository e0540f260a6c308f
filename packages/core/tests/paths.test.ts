import { describe, expect, it } from "vitest";
import {
  normalizeRelativePath,
  resolveInside,
  isInside,
  assertTransportKey,
  assertTransportPrefix,
  isOutpostError,
  isLegalSandboxPath,
  resolveSandboxPath,
} from "@outpost/core";

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

describe("resolveSandboxPath: the sandbox paths a transfer may name", () => {
  const lease = { root: "/work/repo", home: "/home/agent" };

  it("accepts relative paths inside root and absolute paths under root or home, with their anchor", () => {
    expect(resolveSandboxPath(lease, "a/./b/")).toEqual({ path: "/work/repo/a/b", anchor: "/work/repo" });
    expect(resolveSandboxPath(lease, ".")).toEqual({ path: "/work/repo", anchor: "/work/repo" });
    expect(resolveSandboxPath(lease, "/work/repo/x/../y")).toEqual({ path: "/work/repo/y", anchor: "/work/repo" });
    expect(resolveSandboxPath(lease, "/home/agent/.cli/session.json")).toEqual({
      path: "/home/agent/.cli/session.json",
      anchor: "/home/agent",
    });
    expect(resolveSandboxPath(lease, "/home/agent/")).toEqual({ path: "/home/agent", anchor: "/home/agent" });
    expect(isLegalSandboxPath(lease, "/home/agent/x")).toBe(true);
  });

  it.each([
    "/etc/passwd",
    "/tmp/x",
    "/",
    "/work/repository",
    "/home/agent/../other",
    "/work/repo/../../etc",
    "../x",
    "a/../../x",
    "",
    "a\0b",
  ])("refuses %j with code workspace, naming root and home", (path) => {
    expect(isLegalSandboxPath(lease, path)).toBe(false);
    try {
      resolveSandboxPath(lease, path, "download source");
      expect.unreachable();
    } catch (error) {
      expect(isOutpostError(error, "workspace")).toBe(true);
      expect((error as Error).message).toMatch(/^Refused download source/);
    }
  });
});
