import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordCommits } from "../src/journal/record-commits.js";

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

function repository(): { directory: string; git: (...args: string[]) => string; commit: (message: string) => string } {
  const directory = mkdtempSync(join(tmpdir(), "outpost-record-commits-"));
  directories.push(directory);
  const git = (...args: string[]): string =>
    execFileSync("git", ["-c", "user.name=Recorder", "-c", "user.email=recorder@example.com", ...args], {
      cwd: directory,
      encoding: "utf8",
      env: { ...process.env, GIT_AUTHOR_DATE: "1700000000 +0100", GIT_COMMITTER_DATE: "1700000000 +0100" },
    }).trim();
  git("init", "--quiet", "--initial-branch=main");
  return {
    directory,
    git,
    commit: (message) => {
      git("add", "--all");
      git("commit", "--quiet", "--allow-empty", "-m", message);
      return git("rev-parse", "HEAD");
    },
  };
}

describe("recordCommits: each commit with a patch verified to rebuild its tree", () => {
  it("records a root commit, a binary change, a rename, an empty commit and a merge, each rebuilding its own tree", async () => {
    const { directory, git, commit } = repository();
    writeFileSync(join(directory, "a.txt"), "a\n");
    const root = commit("root");
    writeFileSync(join(directory, "data.bin"), Buffer.from([0, 1, 2, 255]));
    const binary = commit("binary");
    git("mv", "a.txt", "b.txt");
    const renamed = commit("rename");
    const empty = commit("empty");
    git("checkout", "--quiet", "-b", "side", root);
    writeFileSync(join(directory, "side.txt"), "side\n");
    const side = commit("side");
    git("checkout", "--quiet", "main");
    git("merge", "--quiet", "--no-edit", side);
    const merge = git("rev-parse", "HEAD");
    const recorded = await recordCommits(directory, [root, binary, renamed, empty, merge], 1024 * 1024);
    expect(recorded.map((entry) => entry.id)).toEqual([root, binary, renamed, empty, merge]);
    for (const entry of recorded) expect(entry.tree).toBe(git("rev-parse", `${entry.id}^{tree}`));
    expect(recorded[0]!.parents).toEqual([]);
    expect(recorded[1]!.patch).toContain("GIT binary patch");
    expect(recorded[3]!.patch).toBe("");
    // A merge's patch goes from its first parent: it brings side.txt in.
    expect(recorded[4]!.parents).toEqual([empty, side]);
    expect(recorded[4]!.patch).toContain("side.txt");
    expect(recorded[4]!.author).toEqual({ name: "Recorder", email: "recorder@example.com", date: "1700000000 +0100" });
  });

  it("keeps a patch larger than a process's kept output whole, and refuses one over maxPatchBytes with code limit", async () => {
    const { directory, commit } = repository();
    writeFileSync(join(directory, "seed.txt"), "seed\n");
    commit("seed");
    writeFileSync(join(directory, "big.txt"), `${randomBytes(1536 * 1024).toString("hex")}\n`);
    const big = commit("big");
    const [recorded] = await recordCommits(directory, [big], 8 * 1024 * 1024);
    expect(Buffer.byteLength(recorded!.patch)).toBeGreaterThan(3 * 1024 * 1024);
    await expect(recordCommits(directory, [big], 1024 * 1024)).rejects.toMatchObject({ code: "limit", details: { commit: big } });
  });

  it("refuses an id that is no commit with code replay, naming the step that failed", async () => {
    const { directory, commit } = repository();
    writeFileSync(join(directory, "a.txt"), "a\n");
    commit("a");
    const error = await recordCommits(directory, ["0".repeat(40)], 1024).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "replay" });
    expect((error as Error).message).toContain("git cat-file failed");
  });

  it("lists and records every commit since a baseline in one go, the same as the listed ids", async () => {
    const { directory, git, commit } = repository();
    writeFileSync(join(directory, "a.txt"), "a\n");
    const baseline = commit("baseline");
    writeFileSync(join(directory, "b.txt"), "b\n");
    const first = commit("first");
    writeFileSync(join(directory, "a.txt"), "changed\n");
    const second = commit("second");
    const since = await recordCommits(directory, { since: baseline }, 1024 * 1024);
    expect(since.map((entry) => entry.id)).toEqual([first, second]);
    expect(since).toEqual(await recordCommits(directory, [first, second], 1024 * 1024));
    expect(await recordCommits(directory, { since: git("rev-parse", "HEAD") }, 1024)).toEqual([]);
    expect(await recordCommits(directory, [], 1024)).toEqual([]);
  });

  it("names the commit that failed among several, and refuses what is not a commit id before running anything", async () => {
    const { directory, commit } = repository();
    writeFileSync(join(directory, "a.txt"), "a\n");
    const good = commit("a");
    const missing = "1".repeat(40);
    await expect(recordCommits(directory, [good, missing], 1024)).rejects.toMatchObject({ code: "replay", details: { commit: missing } });
    for (const hostile of ["HEAD", "--output=/tmp/x", `${good} ${good}`, "$(touch pwned)"])
      await expect(recordCommits(directory, [hostile], 1024)).rejects.toMatchObject({ code: "replay", details: { commit: hostile } });
    await expect(recordCommits(directory, { since: "main; touch pwned" }, 1024)).rejects.toMatchObject({ code: "replay" });
  });
});
