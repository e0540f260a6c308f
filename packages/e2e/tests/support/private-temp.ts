import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

// Setup file: each e2e test file gets its own temporary root, removed when the file ends. Scratch
// repositories, conversation homes, lease homes and the agent CLIs' own temp files (claude-0, cc-socks…)
// all land under it, so an e2e run leaves nothing in /tmp even when a test fails half-way.
// OUTPOST_KEEP_TEMP=1 keeps it, to look at what a failing test left.
const previous = process.env.TMPDIR;
const root = mkdtempSync(join(tmpdir(), "outpost-e2e-file-"));
process.env.TMPDIR = root;

afterAll(() => {
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
  if (process.env.OUTPOST_KEEP_TEMP === "1") console.warn(`kept the test file's temporary root ${root}`);
  else rmSync(root, { recursive: true, force: true, maxRetries: 3 });
});
