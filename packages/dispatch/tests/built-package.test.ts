import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// What users install: @outpost/dispatch as built (dist/), imported by name from a plain node process,
// outside vitest's resolution (no outpost-source condition). Build first (npm test does).
const script = fileURLToPath(new URL("./built/warm-sandbox.mjs", import.meta.url));
const run = promisify(execFile);

describe("the built @outpost/dispatch", () => {
  it("resumes a result and runs a warm sandbox, one operation at a time", async () => {
    const base = await mkdtemp(join(tmpdir(), "outpost-dispatch-built-"));
    try {
      const { NODE_PATH: _, NODE_OPTIONS: __, ...environment } = process.env;
      const { stdout } = await run(process.execPath, [script, base], { env: environment, timeout: 120_000 });
      const outcome = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, unknown>;
      expect(outcome).toMatchObject({ resumedSameConversation: true, refused: "configuration", preserved: false });
      expect(outcome.resumedText).toContain('saw 1 earlier prompt(s): ["first task"]');
      expect(outcome.sandboxText).toContain('saw 2 earlier prompt(s): ["first task","second task"]');
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }, 150_000);
});
