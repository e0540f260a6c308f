import { describe, expect, it } from "vitest";
import { branchPolicyFor } from "../src/options/provider-fit.js";
import { resolveOptions } from "../src/options/resolve-options.js";

const agent = { specificationVersion: "v1", kind: "cli", name: "a", command: () => ({}), createDecoder: () => ({}) };
function provider(placement: string, capabilities?: object) {
  return {
    specificationVersion: "v1",
    name: `p-${placement}`,
    placement,
    ...(capabilities ? { capabilities } : {}),
    acquire: () => {
      throw new Error("acquire must not be called while options are checked");
    },
  };
}
// A mounted provider here keeps `.outpost` out of reach (protectedPaths), as current mode requires of it.
const options = (placement: string, extra: object = {}) =>
  ({
    agent,
    sandboxProvider: provider(placement, placement === "mounted" ? { protectedPaths: true } : undefined),
    brief: "x",
    ...extra,
  }) as never;

describe("options a provider cannot honour are refused from its declaration, before acquire", () => {
  it("an unknown placement is code configuration", () => {
    expect(() => resolveOptions(options("cloud"))).toThrow(expect.objectContaining({ code: "configuration" }));
  });

  it("a remote provider defaults to integrate, accepts named, and refuses current", () => {
    expect(branchPolicyFor(options("remote"))).toEqual({ mode: "integrate" });
    expect(branchPolicyFor(options("remote", { branch: { mode: "named", name: "n" } }))).toEqual({ mode: "named", name: "n" });
    expect(() => branchPolicyFor(options("remote", { branch: { mode: "current" } }))).toThrow(
      expect.objectContaining({ code: "configuration", message: expect.stringContaining('"current"') }),
    );
    expect(branchPolicyFor(options("mounted"))).toEqual({ mode: "current" });
  });

  it("a mounted provider that cannot keep .outpost out of reach is refused in current mode, not in the others", () => {
    const bare = (branch?: object) => ({ agent, sandboxProvider: provider("mounted"), brief: "x", ...(branch ? { branch } : {}) }) as never;
    expect(() => resolveOptions(bare())).toThrow(
      expect.objectContaining({ code: "configuration", message: expect.stringContaining("capabilities.protectedPaths") }),
    );
    expect(() => resolveOptions(bare({ mode: "integrate" }))).not.toThrow();
  });
});

describe("remote-only options and stage limits are checked before acquire", () => {
  it("includeUncommitted: true is for remote providers only, and must be a boolean", () => {
    expect(() => resolveOptions(options("remote", { includeUncommitted: true }))).not.toThrow();
    for (const placement of ["mounted", "host"])
      expect(() => resolveOptions(options(placement, { includeUncommitted: true }))).toThrow(
        expect.objectContaining({ code: "configuration", message: expect.stringContaining("remote providers only") }),
      );
    expect(() => resolveOptions(options("mounted", { includeUncommitted: false }))).not.toThrow();
    expect(() => resolveOptions(options("remote", { includeUncommitted: "yes" }))).toThrow(
      expect.objectContaining({ code: "configuration" }),
    );
  });

  it("limits: whole positive milliseconds, a positive byte count, no unknown key", () => {
    expect(resolveOptions(options("remote", { limits: { gitMs: 5, mergeMs: 7 } })).limits).toEqual({
      gitMs: 5,
      mergeMs: 7,
      bundleBytes: 1024 ** 3,
      syncBackBytes: 1024 ** 3,
      syncBackFiles: 100_000,
    });
    for (const limits of [
      { gitMs: 0 },
      { copyMs: 1.5 },
      { collectMs: "1" },
      { bundleBytes: -1 },
      { syncBackFiles: 0 },
      { syncBackBytes: 1.5 },
      { seedMs: 1 },
      "fast",
    ])
      expect(() => resolveOptions(options("remote", { limits }))).toThrow(expect.objectContaining({ code: "configuration" }));
  });
});
