import { execFileSync } from "node:child_process";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedCommit } from "@outpost/core";
import { recordCommits } from "../src/journal/record-commits.js";
import { rebuildScript } from "../src/replay/rebuild-script.js";
import { scratchRepository } from "./support/scratch-repository.js";

// The replay's rebuild script, run by sh in a real repository: commits whose messages hold what a shell would
// expand ($, backquotes, backslashes, a quote), a binary file, a removal, a mode change and a message without a
// final newline come back with their exact ids, by the fast rebuild (one apply, one fast-import) and commit by
// commit; a journal the fast rebuild cannot reproduce falls back to the commit-by-commit rebuild.
const repository = scratchRepository("outpost-rebuild-script-");
afterAll(() => rmSync(repository, { recursive: true, force: true }));
const git = (args: string[], input?: string, variables: Record<string, string> = {}): string =>
  execFileSync("git", args, { cwd: repository, encoding: "utf8", input, env: { ...process.env, ...variables } }).trim();
const ref = "refs/outpost/replay/test";
const identity = ["-c", "user.name=Ann O'Neil", "-c", "user.email=ann@example.com"];
let base = "";
let recorded: RecordedCommit[] = [];

beforeAll(async () => {
  base = git(["rev-parse", "HEAD"]);
  writeFileSync(join(repository, "a.txt"), "one\n");
  git(["add", "a.txt"]);
  git([...identity, "commit", "-q", "-F", "-"], "Costs $HOME and `whoami` \\n \\\\ it's 100%\n\nbody line\n");
  writeFileSync(join(repository, "b.bin"), Buffer.from([0, 1, 255]));
  writeFileSync(join(repository, "a.txt"), "one\ntwo\n");
  git(["add", "b.bin", "a.txt"]);
  // A message without a final newline, as only commit-tree writes it.
  const tree = git(["write-tree"]);
  const bare = git(["commit-tree", tree, "-p", "HEAD", "-F", "-"], "no final newline $PATH", {
    GIT_AUTHOR_NAME: "B",
    GIT_AUTHOR_EMAIL: "b@example.com",
    GIT_COMMITTER_NAME: "B",
    GIT_COMMITTER_EMAIL: "b@example.com",
  });
  git(["update-ref", "HEAD", bare]);
  git(["reset", "-q", "--hard"]);
  git(["rm", "-q", "README.md"]);
  git(["update-index", "--chmod=+x", "a.txt"]);
  writeFileSync(join(repository, "a.txt"), "one\ntwo\nthree\n");
  git(["add", "a.txt"]);
  git([...identity, "commit", "-q", "-m", "Remove the readme, make a.txt executable"]);
  recorded = await recordCommits(repository, { since: base }, 1 << 20);
  expect(recorded).toHaveLength(3);
});

/** Runs the script as ReplayBuild does: when the fast rebuild says `again`, the commit-by-commit one follows. */
function rebuild(commits: readonly RecordedCommit[], fast?: boolean): string[] {
  git(["reset", "-q", "--hard", base]);
  git(["update-ref", "-d", ref]);
  const run = (script: string): string[] =>
    execFileSync("sh", [], { cwd: repository, input: script, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] })
      .trim()
      .split("\n");
  const lines = run(rebuildScript({ indexName: "outpost-test.index" }, ref, commits, fast));
  if (lines[1] !== "again") return lines;
  expect(lines).toHaveLength(2);
  const [, head, index] = lines[0]!.split(" ");
  return [lines[0]!, ...run(rebuildScript({ index: index!, head: head! }, ref, commits, false))];
}

function untouched(): void {
  expect(git(["rev-parse", "HEAD"])).toBe(base);
  expect(git(["status", "--porcelain"])).toBe("");
  // A fast-import that stopped leaves a crash report in the git directory: the fast rebuild never lets it.
  expect(readdirSync(join(repository, ".git")).filter((name) => name.startsWith("fast_import_crash"))).toEqual([]);
}

describe("rebuildScript", () => {
  it("rebuilds the recorded commits with their ids in one fast-import into the scratch ref, leaving HEAD, the index and the files alone", () => {
    expect(rebuild(recorded)).toEqual([
      `start ${base} ${join(repository, ".git", "outpost-test.index")}`,
      "fast",
      ...recorded.map((commit) => commit.id),
    ]);
    expect(git(["rev-parse", ref])).toBe(recorded[2]!.id);
    expect(git(["rev-list", "--objects", `${base}..${ref}`]).split("\n").length).toBeGreaterThan(3);
    untouched();
  });

  it("rebuilds them commit by commit when asked, each on the last", () => {
    expect(rebuild(recorded, false)).toEqual([
      `start ${base} ${join(repository, ".git", "outpost-test.index")}`,
      `ok ${recorded[0]!.tree} ${recorded[0]!.id} ${base}`,
      `ok ${recorded[1]!.tree} ${recorded[1]!.id} ${recorded[0]!.id}`,
      `ok ${recorded[2]!.tree} ${recorded[2]!.id} ${recorded[1]!.id}`,
    ]);
    expect(git(["rev-parse", ref])).toBe(recorded[2]!.id);
    untouched();
  });

  it("rebuilds commit by commit a journal whose fields no longer give the recorded id (so the replay reports it)", () => {
    const edited = recorded.map((commit, position) => (position === 1 ? { ...commit, message: `${commit.message} (edited)` } : commit));
    const lines = rebuild(edited);
    expect(lines[1]).toBe(`ok ${recorded[0]!.tree} ${recorded[0]!.id} ${base}`);
    expect(lines[2]).toMatch(new RegExp(`^ok ${recorded[1]!.tree} (?!${recorded[1]!.id})[0-9a-f]{40} ${recorded[0]!.id}$`));
    untouched();
  });

  it("falls back to commit by commit when the patches do not give the recorded tree, though git holds the blob they name", () => {
    // The last patch's content changed, its `index` line kept: the patches apply, but the blob it names is never written.
    const forged = recorded.map((commit, position) =>
      position === 2 ? { ...commit, patch: commit.patch.replace("+three", "+tres") } : commit,
    );
    const lines = rebuild(forged);
    expect(lines.slice(1, 3)).toEqual([
      `ok ${recorded[0]!.tree} ${recorded[0]!.id} ${base}`,
      `ok ${recorded[1]!.tree} ${recorded[1]!.id} ${recorded[0]!.id}`,
    ]);
    expect(lines[3]).toMatch(new RegExp(`^ok (?!${recorded[2]!.tree})[0-9a-f]{40} [0-9a-f]{40} ${recorded[1]!.id}$`));
    untouched();
  });

  it("falls back to commit by commit, with no crash report, when a blob a patch names is not a blob git holds", () => {
    const named = /^diff --git a\/a\.txt[^]*?^index [0-9a-f]{40}\.\.([0-9a-f]{40})/m.exec(recorded[2]!.patch)![1]!;
    // Never made, or a tree: either would stop fast-import.
    for (const blob of ["1".repeat(40), git(["rev-parse", `${base}^{tree}`])]) {
      const forged = recorded.map((commit, position) =>
        position === 2 ? { ...commit, patch: commit.patch.replace(named, blob) } : commit,
      );
      // git apply does not check the header's blob id: commit by commit, the commits come back as recorded.
      expect(rebuild(forged).slice(1)).toEqual([
        `ok ${recorded[0]!.tree} ${recorded[0]!.id} ${base}`,
        `ok ${recorded[1]!.tree} ${recorded[1]!.id} ${recorded[0]!.id}`,
        `ok ${recorded[2]!.tree} ${recorded[2]!.id} ${recorded[1]!.id}`,
      ]);
      untouched();
    }
  });
});
