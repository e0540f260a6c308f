import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { gitIn, scratchRepository, scriptAgent } from "../src/index.js";
import { addKeptWorktree, gitControlState, hostileGitScript, userGitCommands } from "./support/git-vectors.js";

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));

// The local provider runs the agent as a host process: it can write the repository's git directory. What
// Outpost promises there is narrower: its own git runs nothing planted, and after the turn every git
// control file is put back as it was and reported, before the engine or the user runs git again.
describe("the git control files with the local provider", () => {
  for (const mode of ["integrate", "current"] as const) {
    it(`${mode}: hooks, config and a commondir the agent planted are restored and reported; nothing planted runs afterwards`, async () => {
      const repository = scratchRepository();
      const markers = mkdtempSync(join(tmpdir(), "outpost-markers-"));
      if (mode === "current") addKeptWorktree(repository);
      const before = gitControlState(repository);
      const warnings: string[] = [];
      const agent = scriptAgent({
        directory: agentDirectory,
        behaviour: {
          SHELL: hostileGitScript(markers, join(repository, ".git"), repository, { commitAfterPlanting: false, plantCommondir: true }),
        },
      });
      const result = await dispatch({
        agent,
        brief: "plant everything",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode },
        warn: (message) => warnings.push(message),
      });
      expect(result.commits).toHaveLength(1);
      expect(gitIn(repository, "log", "-1", "--format=%s", "HEAD")).toBe("planted vectors");
      const report = warnings.find((warning) => warning.includes("git control files"));
      expect(report).toBeDefined();
      for (const path of ["config", "commondir", "hooks/pre-commit", "hooks/post-merge"])
        expect(report).toContain(join(repository, ".git", path));
      expect(gitControlState(repository)).toBe(before);
      expect(readdirSync(markers)).toEqual([]);
      userGitCommands(repository);
      expect(readdirSync(markers)).toEqual([]);
    }, 30_000);
  }
});
