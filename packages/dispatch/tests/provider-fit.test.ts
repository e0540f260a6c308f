import { describe, expect, it } from "vitest";
import { branchPolicyFor } from "../src/options/provider-fit.js";
import { resolveOptions } from "../src/options/resolve-options.js";

const agent = { specificationVersion: "v1", kind: "cli", name: "a", command: () => ({}), createDecoder: () => ({}) };
function provider(placement: string) {
  return {
    specificationVersion: "v1",
    name: `p-${placement}`,
    placement,
    acquire: () => {
      throw new Error("acquire must not be called while options are checked");
    },
  };
}
const options = (placement: string, extra: object = {}) => ({ agent, sandboxProvider: provider(placement), brief: "x", ...extra }) as never;

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
});
