import { describe, expect, it } from "vitest";
import * as dispatchPackage from "../src/index.js";

describe("@outpost/dispatch exports", () => {
  it("exposes dispatch and its defaults", () => {
    expect(typeof dispatchPackage.dispatch).toBe("function");
    expect(dispatchPackage.DISPATCH_DEFAULTS).toEqual({
      passes: 1,
      idleMs: 600_000,
      idleWarningMs: 60_000,
      settleMs: 60_000,
      deadlineMs: 3_600_000,
      expansionMs: 30_000,
    });
    expect(dispatchPackage.DEFAULT_MARKER).toBe("<outpost>done</outpost>");
    expect(dispatchPackage.DEFAULT_HOOK_DEADLINE_MS).toBe(600_000);
  });
});
