import { describe, expect, it } from "vitest";
import { patchChanges } from "../src/replay/patch-changes.js";

// What the fast replay reads from a recorded patch's headers (`git diff-tree -p --binary --full-index --no-renames`).
const A = "a".repeat(40);
const B = "b".repeat(40);
const ZERO = "0".repeat(40);

describe("patchChanges", () => {
  it("reads each file's final blob and mode, and removals, from the headers, skipping the hunks", () => {
    const patch = [
      "diff --git a/src/new file.txt b/src/new file.txt",
      "new file mode 100644",
      `index ${ZERO}..${A}`,
      "--- /dev/null",
      "+++ b/src/new file.txt",
      "@@ -0,0 +1 @@",
      "+diff --git a/not b/a header",
      "diff --git a/run.sh b/run.sh",
      "old mode 100644",
      "new mode 100755",
      `index ${A}..${B}`,
      "--- a/run.sh",
      "+++ b/run.sh",
      "@@ -1 +1 @@",
      "-x",
      "+y",
      "diff --git a/gone.bin b/gone.bin",
      "deleted file mode 100644",
      `index ${B}..${ZERO}`,
      "GIT binary patch",
      "literal 0",
      "HcmV?d00001",
      "",
      "diff --git a/edited b/edited",
      `index ${A}..${B} 100644`,
      "--- a/edited",
      "+++ b/edited",
      "@@ -1 +1 @@",
      "-a",
      "+b",
      "",
    ].join("\n");
    expect(patchChanges(patch)).toEqual([
      { kind: "modify", mode: "100644", blob: A, path: "src/new file.txt" },
      { kind: "modify", mode: "100755", blob: B, path: "run.sh" },
      { kind: "delete", path: "gone.bin" },
      { kind: "modify", mode: "100644", blob: B, path: "edited" },
    ]);
    expect(patchChanges("")).toEqual([]);
  });

  it("reads nothing it cannot be sure of: a mode change without an index line, a quoted path, an unknown header", () => {
    expect(patchChanges("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n")).toBeUndefined();
    expect(patchChanges(`diff --git "a/tab\\there" "b/tab\\there"\nindex ${A}..${B} 100644\n`)).toBeUndefined();
    expect(patchChanges(`diff --git a/x b/x\nindex ${A}..${B} 100644\nwhat is this\n`)).toBeUndefined();
    expect(patchChanges(`diff --git a/x b/y\nindex ${A}..${B} 100644\n`)).toBeUndefined();
    expect(patchChanges(`preamble\ndiff --git a/x b/x\nindex ${A}..${B} 100644\n`)).toBeUndefined();
    for (const path of ["x//y", "x/../y", "./y", ".git/config", "x/.GIT/y", "x/"])
      expect(patchChanges(`diff --git a/${path} b/${path}\nindex ${A}..${B} 100644\n`), path).toBeUndefined();
  });
});
