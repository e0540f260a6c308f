import { describe, expect, it } from "vitest";
import { descriptorOptions } from "../src/descriptor-options.js";

describe("descriptorOptions", () => {
  const read = descriptorOptions({
    name: "box",
    empty: "",
    cpus: 2,
    flagged: "4.5",
    spaces: " ",
    word: "four",
    on: true,
    onText: "true",
    off: "yes",
  });

  it("reads non-empty text only", () => {
    expect(read.text("name")).toBe("box");
    expect(read.text("empty")).toBeUndefined();
    expect(read.text("cpus")).toBeUndefined();
    expect(read.text("missing")).toBeUndefined();
  });

  it("reads numbers given as numbers or as their text, nothing else", () => {
    expect(read.number("cpus")).toBe(2);
    expect(read.number("flagged")).toBe(4.5);
    for (const key of ["spaces", "empty", "word", "on", "missing"]) expect(read.number(key), key).toBeUndefined();
  });

  it('reads a flag from true or "true" only', () => {
    expect([read.flag("on"), read.flag("onText"), read.flag("off"), read.flag("missing")]).toEqual([true, true, false, false]);
  });
});
