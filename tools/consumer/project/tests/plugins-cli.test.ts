import { describe, expect, it } from "vitest";
import { git, jsonLines, outpost, scratchRepository } from "./support/installed.js";

// Plugins written outside the monorepo, installed from their folders: the installed CLI finds and runs them.
describe("third-party plugins with the installed outpost bin", () => {
  it("outpost --help names them, and run --agent notes --provider hostdir commits through integrate", async () => {
    const repository = scratchRepository("outpost-consumer-plugins-");
    const help = await outpost(["--help"], { cwd: repository });
    expect(help.stdout).toMatch(/Installed agents: .*\bnotes\b/);
    expect(help.stdout).toMatch(/Installed providers: .*\bhostdir\b/);
    const run = await outpost(
      [
        "run",
        "--agent",
        "notes",
        "--provider",
        "hostdir",
        "--provider-option",
        "tag=cli",
        "--branch",
        "integrate",
        "--json",
        "remember the milk",
      ],
      { cwd: repository },
    );
    expect(run.status, run.stderr).toBe(0);
    const result = jsonLines(run.stdout).at(-1)!;
    expect(result).toMatchObject({ type: "result", completed: true });
    expect(result["commits"]).toEqual([git(repository, "rev-parse", "main")]);
    expect(git(repository, "show", "main:NOTES.md")).toBe("- remember the milk");
    const foreign = await outpost(["run", "--agent", "notes", "--provider", "hostdir", "--provider-option", "zone=x", "brief"], {
      cwd: repository,
    });
    expect(foreign.status).toBe(2);
    expect(foreign.stderr).toContain("--zone does not apply to --provider hostdir (it reads: --tag)");
  });
});
