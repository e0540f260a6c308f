// Imported first by every benchmark here: the scratch repositories, agents and worktrees a run makes (thousands
// of them) go in one directory of their own, removed when the process exits (OUTPOST_KEEP_TEMP=1 keeps it),
// as each test file's do. Child processes inherit TMPDIR, so theirs go there too.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = mkdtempSync(join(tmpdir(), "outpost-bench-"));
process.env.TMPDIR = root;
process.on("exit", () => {
  if (process.env.OUTPOST_KEEP_TEMP !== "1") rmSync(root, { recursive: true, force: true });
});
