import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OutpostError } from "@outpost/core";
import { errorInCliWords, inCliWords } from "../src/output/cli-words.js";

describe("engine messages in the command line's words", () => {
  it("names flags instead of library options", () => {
    expect(inCliWords("claude ran past its 100 ms deadline and was stopped. Raise deadlineMs or give it a smaller task.")).toContain(
      "Raise --deadline-ms",
    );
    const missing = inCliWords("No captured claude conversation abc at /x. Capture it first, or pass the home it was captured under.");
    expect(missing).toContain("--conversation-home <dir>");
    expect(missing).not.toContain("Capture it first");
  });

  it("does not suggest git's --force for a kept worktree", () => {
    expect(
      inCliWords("kept: uncommitted changes in the worktree (fatal: '/w' contains modified or untracked files, use --force to delete it)"),
    ).toBe("kept: uncommitted changes in the worktree (fatal: '/w' contains modified or untracked files)");
  });

  it("says nothing was committed instead of 'Work is kept … (0 commits)'; keeps the sentence when there is work", () => {
    const recovery = { commits: [], phase: "acquire", branch: "main", directory: "/r" };
    const empty = new OutpostError("provider", "No engine. Work is kept on branch main in /r (0 commits); failed phase: acquire.", {
      details: { recovery },
    });
    expect(errorInCliWords(empty).message).toBe("No engine. Nothing was committed (failed phase: acquire).");
    expect(errorInCliWords(empty).code).toBe("provider");
    const worktree = mkdtempSync(join(tmpdir(), "outpost-cli-words-"));
    const directory = join(worktree, ".outpost", "workspaces", "w1");
    mkdirSync(directory, { recursive: true });
    const inWorktree = new OutpostError(
      "process",
      `Died. Work is kept on branch outpost/w1 in ${directory} (0 commits); failed phase: turns.`,
      {
        details: { recovery: { ...recovery, directory } },
      },
    );
    expect(errorInCliWords(inWorktree).message).toBe(
      `Died. Nothing was committed (failed phase: turns). Its worktree is kept: ${directory} (\`outpost ps\` lists it, \`outpost clean\` removes it).`,
    );
    const kept = new OutpostError("process", "Died. Work is kept on branch main in /r (1 commit); failed phase: turn.", {
      details: { recovery: { ...recovery, commits: ["abc"] } },
    });
    expect(errorInCliWords(kept).message).toBe(kept.message);
  });

  it("a failed agent CLI points at outpost doctor for that agent, where a missing key shows", () => {
    const failed = new OutpostError(
      "process",
      "claude failed (exit 1): Not logged in · Please run /login. Check the agent's configuration and the sandbox. Work is kept on branch b.",
    );
    expect(errorInCliWords(failed).message).toBe(
      "claude failed (exit 1): Not logged in · Please run /login. Check the agent's configuration and the sandbox: " +
        "`outpost doctor --agent claude` reports its CLI and whether its key is found (keys go in .outpost/.env). Work is kept on branch b.",
    );
    expect(errorInCliWords(failed).code).toBe("process");
  });
});
