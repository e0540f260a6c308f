import { describe, expect, it } from "vitest";
import { validateCopies } from "../src/workspace/copies.js";
import { resolveMarkers, DEFAULT_MARKER } from "../src/turn/markers.js";
import { slug } from "../src/workspace/slug.js";

describe("validateCopies", () => {
  it("normalizes good entries", () => {
    expect(validateCopies(["./.env", "config//local.json", "dir/"], "integrate")).toEqual([".env", "config/local.json", "dir"]);
  });

  it.each(["/etc/passwd", "C:\\\\x", "../up", "a/../../up", "a\\\\..\\\\..\\\\up", ".git", "sub/.git/config", "", ".", "a\0b"])(
    "refuses %j with code configuration",
    (entry) => {
      expect(() => validateCopies([entry], "named")).toThrow(expect.objectContaining({ code: "configuration" }));
    },
  );

  it("needs a new worktree", () => {
    expect(() => validateCopies([".env"], "current")).toThrow(expect.objectContaining({ code: "configuration" }));
    expect(validateCopies([], "current")).toEqual([]);
  });
});

describe("resolveMarkers", () => {
  it("defaults, accepts one or many, [] disables, refuses empty strings", () => {
    expect(resolveMarkers(undefined)).toEqual([DEFAULT_MARKER]);
    expect(resolveMarkers("DONE")).toEqual(["DONE"]);
    expect(resolveMarkers([])).toEqual([]);
    expect(() => resolveMarkers(["ok", ""])).toThrow(expect.objectContaining({ code: "configuration" }));
  });
});

describe("slug", () => {
  it("makes branch-safe names", () => {
    expect(slug("Fix the Login!! page")).toBe("fix-the-login-page");
    expect(slug("../../etc")).toBe("etc");
    expect(slug("x".repeat(100)).length).toBe(40);
  });
});

describe("timer options", () => {
  it("refuses values timers cannot hold, and says NaN when given NaN", async () => {
    const { resolveOptions } = await import("../src/options/resolve-options.js");
    const base = {
      agent: { specificationVersion: "v1", kind: "cli", name: "a", command: () => ({}), createDecoder: () => ({}) },
      sandboxProvider: { specificationVersion: "v1", name: "p", placement: "host", acquire: async () => ({}) },
      brief: "x",
    } as never;
    const withOption = (extra: object) => () => resolveOptions({ ...(base as object), ...extra } as never);
    expect(withOption({ deadlineMs: 2 ** 31 })).toThrow(
      expect.objectContaining({ code: "configuration", message: expect.stringContaining("more than timers can hold") }),
    );
    expect(withOption({ idleMs: 2 ** 31 - 1 })).not.toThrow();
    expect(withOption({ idleMs: Number.NaN })).toThrow(
      expect.objectContaining({ code: "configuration", message: expect.stringContaining("got NaN") }),
    );
    expect(withOption({ settleMs: Number.POSITIVE_INFINITY })).toThrow(
      expect.objectContaining({ message: expect.stringContaining("got Infinity") }),
    );
    expect(withOption({ hooks: { workspaceReady: [{ executable: "true", deadlineMs: 2 ** 32 }] } })).toThrow(
      expect.objectContaining({ code: "configuration", message: expect.stringContaining("hooks.workspaceReady deadlineMs") }),
    );
  });
});
