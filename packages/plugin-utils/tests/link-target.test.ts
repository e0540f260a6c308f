import { describe, expect, it } from "vitest";
import { assertLinkStaysInside } from "../src/index.js";

describe("assertLinkStaysInside", () => {
  it.each([
    ["a", "b"],
    ["d/a", "../b"],
    ["d/e/a", "../../b"],
    ["d/a", "./x/../y"],
  ])("keeps %s -> %s", (path, target) => {
    expect(() => assertLinkStaysInside(path, target)).not.toThrow();
  });

  it.each([
    ["a", "/etc/passwd", /absolute/],
    ["a", "..", /leaving/],
    ["a", "../b", /leaving/],
    ["d/a", "../../b", /leaving/],
    ["d/a", "x/../../../b", /leaving/],
  ])("refuses %s -> %s", (path, target, problem) => {
    expect(() => assertLinkStaysInside(path, target)).toThrow(problem);
  });
});
