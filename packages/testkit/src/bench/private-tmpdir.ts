import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Gives a benchmark process a temporary root of its own: TMPDIR, which `os.tmpdir()` and every process it
 * starts follow, so the scratch repositories, caches and worktrees a run makes (thousands of them) go there,
 * and it is removed when the process exits (OUTPOST_KEEP_TEMP=1 keeps it), as each test file's root is.
 * Call it before anything makes a temporary file. Returns the root.
 */
export function usePrivateTmpdir(prefix = "outpost-bench-"): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  process.env.TMPDIR = root;
  process.on("exit", () => {
    if (process.env.OUTPOST_KEEP_TEMP !== "1") rmSync(root, { recursive: true, force: true });
  });
  return root;
}
