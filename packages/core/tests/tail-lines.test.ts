import { describe, expect, it } from "vitest";
import { tailLines } from "@outpost/core";

describe("tailLines", () => {
  it("keeps short output whole, trimmed", () => {
    expect(tailLines("\n  boom\n", 400)).toBe("boom");
    expect(tailLines("", 400)).toBe("");
  });

  it("keeps only whole lines: an error line is never cut in its middle", () => {
    const stderr = ["[eval]:1", "x".repeat(300), "ReferenceError: __require is not defined", "    at main ([eval]:1:9)", ""].join("\n");
    const tail = tailLines(stderr, 100);
    expect(tail).toBe("ReferenceError: __require is not defined\n    at main ([eval]:1:9)");
    expect(tailLines(stderr, 30)).toBe("at main ([eval]:1:9)");
  });

  it("counts bytes, not characters, and never splits a character", () => {
    const line = "é".repeat(10); // 20 bytes
    expect(tailLines(`${line}\n${line}`, 30)).toBe(line);
    expect(tailLines(line, 7)).toBe("…ééé");
  });

  it("cuts a single line longer than the limit, marked", () => {
    expect(tailLines("abcdefghij", 4)).toBe("…ghij");
    expect(tailLines("abc", 0)).toBe("");
  });
});
