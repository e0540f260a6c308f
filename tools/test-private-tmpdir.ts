import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

// Setup file of every test project: each test file gets its own temporary root (TMPDIR, which os.tmpdir()
// and the processes a test starts follow), removed when the file ends, so a test run leaves nothing in /tmp
// even when a test fails half-way. OUTPOST_KEEP_TEMP=1 keeps it, to look at what a failing test left.
const previous = process.env.TMPDIR;
const root = mkdtempSync(join(tmpdir(), "outpost-test-file-"));
process.env.TMPDIR = root;

afterAll(() => {
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
  if (process.env.OUTPOST_KEEP_TEMP === "1") console.warn(`kept the test file's temporary root ${root}`);
  else rmSync(root, { recursive: true, force: true, maxRetries: 3 });
});
