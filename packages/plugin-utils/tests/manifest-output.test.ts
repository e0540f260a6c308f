import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { parseManifestOutput } from "../src/manifest-output.js";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("parseManifestOutput", () => {
  it("pairs hashes by name whatever order the two find passes printed them in, GNU escapes included", () => {
    const output = [
      "S|644|3|./a.txt",
      "S|755|5|./dir/back\\slash|bar",
      "L|./link",
      "Ta.txt",
      "--",
      `\\${sha("back")}  ./dir/back\\\\slash|bar`,
      `${sha("a")}  ./a.txt`,
      "",
    ].join("\n");
    expect(parseManifestOutput(output)).toEqual([
      { path: "a.txt", kind: "file", mode: 0o644, size: 3, sha256: sha("a") },
      { path: "dir/back\\slash|bar", kind: "file", mode: 0o755, size: 5, sha256: sha("back") },
      { path: "link", kind: "link", mode: 0o777, size: 5, sha256: sha("a.txt") },
    ]);
  });

  it("a file listed but not hashed (the tree changed between the passes) is a conflict", () => {
    const failure = (() => {
      try {
        return parseManifestOutput(["S|644|3|./new.txt", "--", ""].join("\n"));
      } catch (error) {
        return error;
      }
    })();
    expect(isOutpostError(failure, "conflict")).toBe(true);
  });

  it("a link in the output that leaves the tree is refused", () => {
    expect(() => parseManifestOutput(["L|./up", "T../../etc", "--"].join("\n"))).toThrow(/leaving the transferred tree/);
  });

  it("a link line without its target line is malformed (code workspace), never read as a target", () => {
    const failure = (() => {
      try {
        return parseManifestOutput(["L|./link", "S|644|3|./a.txt", "--", `${sha("a")}  ./a.txt`].join("\n"));
      } catch (error) {
        return error;
      }
    })();
    expect(isOutpostError(failure, "workspace")).toBe(true);
  });
});
