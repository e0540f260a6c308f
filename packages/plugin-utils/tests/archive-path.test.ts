import { describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { normalizeTreePath } from "../src/index.js";

describe("normalizeTreePath", () => {
  it("keeps a backslash as part of a name and drops . segments and trailing slashes", () => {
    expect(normalizeTreePath("back\\slash", "entry")).toBe("back\\slash");
    expect(normalizeTreePath("./a/./b/", "entry")).toBe("a/b");
    expect(normalizeTreePath(".", "entry")).toBe("");
    expect(normalizeTreePath("a/../b", "entry")).toBe("b");
  });

  it("refuses NUL, absolute paths and every way of climbing out, as workspace errors", () => {
    for (const path of ["a\0b", "/etc/passwd", "..", "../x", "a/../../x", "./.."]) {
      let error: unknown;
      try {
        normalizeTreePath(path, "archive entry");
      } catch (failure) {
        error = failure;
      }
      expect(isOutpostError(error, "workspace"), path).toBe(true);
    }
  });
});
