import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The redact option as users install it: dist/, imported by name from a plain node process. Build first (npm test does).
const script = fileURLToPath(new URL("./built/redaction.mjs", import.meta.url));
const run = promisify(execFile);

describe("the built @outpost/dispatch", () => {
  it("redacts a value from observations and .outpost, and keeps the captured conversation byte-exact", async () => {
    const base = await mkdtemp(join(tmpdir(), "outpost-dispatch-redaction-"));
    try {
      const { NODE_PATH: _, NODE_OPTIONS: __, ...environment } = process.env;
      const { stdout } = await run(process.execPath, [script, base], { env: environment, timeout: 120_000 });
      expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({
        textHasSecret: true,
        observedSecret: false,
        observedRedacted: true,
        outpostFilesWithSecret: [],
        conversationHasSecret: true,
      });
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }, 150_000);
});
