import { describe, expect, it } from "vitest";
import { isOutpostError, OutpostError, ReplayDivergence } from "../src/index.js";

describe("ReplayDivergence", () => {
  it("is an OutpostError with code replay carrying its kind and the recorded and actual values, also in details and JSON", () => {
    const divergence = new ReplayDivergence({
      kind: "commit",
      recorded: "a".repeat(40),
      actual: "b".repeat(40),
      pass: 1,
      message: "ids differ",
    });
    expect(divergence).toBeInstanceOf(OutpostError);
    expect(isOutpostError(divergence, "replay")).toBe(true);
    expect(ReplayDivergence.isDivergence(divergence)).toBe(true);
    expect(ReplayDivergence.isDivergence(new OutpostError("replay", "damaged"))).toBe(false);
    expect([divergence.kind, divergence.recorded, divergence.actual, divergence.found, divergence.pass]).toEqual([
      "commit",
      "a".repeat(40),
      "b".repeat(40),
      "b".repeat(40),
      1,
    ]);
    const plain = {
      kind: "commit",
      recorded: "a".repeat(40),
      actual: "b".repeat(40),
      found: "b".repeat(40),
      pass: 1,
      message: "ids differ",
    };
    expect(divergence.details["divergence"]).toEqual(plain);
    expect(JSON.parse(JSON.stringify(divergence))).toEqual(plain);
  });
});
