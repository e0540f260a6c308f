import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { gitIn, scratchRepository, scriptAgent } from "../src/index.js";

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));

describe("dispatch concurrency", () => {
  it("eight integrate dispatches at once on one repository: every commit lands, refs intact", async () => {
    const repository = scratchRepository();
    const provider = localProvider({ home: "private" });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        dispatch({
          agent: scriptAgent({ directory: agentDirectory, behaviour: { FILE: `file-${index}.txt`, CONTENT: `agent ${index}` } }),
          brief: `write file-${index}.txt`,
          label: `agent ${index}`,
          repository,
          sandboxProvider: provider,
          branch: { mode: "integrate" },
        }),
      ),
    );
    const landed = new Set(gitIn(repository, "rev-list", "main").split("\n"));
    for (const [index, result] of results.entries()) {
      expect(result.branch).toBe("main");
      expect(result.commits).toHaveLength(1);
      expect(landed.has(result.commits[0]!)).toBe(true);
      expect(readFileSync(join(repository, `file-${index}.txt`), "utf8")).toBe(`agent ${index}\n`);
    }
    // The host checkout followed every integration: nothing staged, nothing missing.
    expect(gitIn(repository, "status", "--porcelain")).toBe("");
    expect(gitIn(repository, "fsck", "--strict", "--no-dangling")).toBe("");
    expect(gitIn(repository, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(gitIn(repository, "branch", "--list", "outpost/*")).toBe("");
  });
});
