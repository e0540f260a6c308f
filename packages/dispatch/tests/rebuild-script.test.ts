import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordCommits } from "../src/journal/record-commits.js";
import { rebuildScript } from "../src/replay/rebuild-script.js";
import { scratchRepository } from "./support/scratch-repository.js";

// The replay's rebuild script, run by sh in a real repository: commits whose messages hold what a shell would
// expand ($, backquotes, backslashes, a quote) and one without a final newline come back with their exact ids.
const repository = scratchRepository("outpost-rebuild-script-");
afterAll(() => rmSync(repository, { recursive: true, force: true }));
const git = (args: string[], input?: string, variables: Record<string, string> = {}): string =>
  execFileSync("git", args, { cwd: repository, encoding: "utf8", input, env: { ...process.env, ...variables } }).trim();

describe("rebuildScript", () => {
  it("rebuilds each recorded commit with its id into the scratch ref, on a private index, leaving HEAD, the index and the files alone", async () => {
    const base = git(["rev-parse", "HEAD"]);
    const identity = ["-c", "user.name=Ann O'Neil", "-c", "user.email=ann@example.com"];
    writeFileSync(join(repository, "a.txt"), "one\n");
    git(["add", "a.txt"]);
    git([...identity, "commit", "-q", "-F", "-"], "Costs $HOME and `whoami` \\n \\\\ it's 100%\n\nbody line\n");
    writeFileSync(join(repository, "b.bin"), Buffer.from([0, 1, 255]));
    git(["add", "b.bin"]);
    // A message without a final newline, as only commit-tree writes it.
    const tree = git(["write-tree"]);
    const bare = git(["commit-tree", tree, "-p", "HEAD", "-F", "-"], "no final newline $PATH", {
      GIT_AUTHOR_NAME: "B",
      GIT_AUTHOR_EMAIL: "b@example.com",
      GIT_COMMITTER_NAME: "B",
      GIT_COMMITTER_EMAIL: "b@example.com",
    });
    git(["update-ref", "HEAD", bare]);
    const recorded = await recordCommits(repository, { since: base }, 1 << 20);
    expect(recorded).toHaveLength(2);
    git(["reset", "-q", "--hard", base]);
    const ref = "refs/outpost/replay/test";
    const output = execFileSync("sh", [], {
      cwd: repository,
      input: rebuildScript({ indexName: "outpost-test.index" }, ref, recorded),
      encoding: "utf8",
    });
    expect(output.trim().split("\n")).toEqual([
      `start ${base} ${join(repository, ".git", "outpost-test.index")}`,
      `ok ${recorded[0]!.tree} ${recorded[0]!.id} ${base}`,
      `ok ${recorded[1]!.tree} ${recorded[1]!.id} ${recorded[0]!.id}`,
    ]);
    expect(git(["rev-parse", ref])).toBe(recorded[1]!.id);
    expect(git(["rev-parse", "HEAD"])).toBe(base);
    expect(git(["status", "--porcelain"])).toBe("");
  });
});
