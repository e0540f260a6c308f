import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fsTransport } from "@outpost/transport-fs";
import { bundleCommits } from "../src/commit-bundle.js";
import { publishBranch, pushBranch } from "../src/publish-branch.js";
import { bareRemote, git } from "./support/fleet.js";

const temporary = () => mkdtempSync(join(tmpdir(), "outpost-queue-publish-"));
const IDENTITY = ["-c", "user.name=Agent", "-c", "user.email=agent@outpost.invalid"];

/** A clone of `remote` with one commit on a local branch `attempt`; returns its directory and head. */
function attemptClone(remote: string): { clone: string; head: string } {
  const clone = join(temporary(), "clone");
  git(tmpdir(), "clone", "--quiet", remote, clone);
  git(clone, "checkout", "--quiet", "-b", "attempt");
  writeFileSync(join(clone, "work.txt"), "work\n");
  git(clone, "add", "work.txt");
  git(clone, ...IDENTITY, "commit", "--quiet", "-m", "work");
  return { clone, head: git(clone, "rev-parse", "HEAD") };
}

/** Another worker's cache: a clone that never saw the attempt's commit. */
function freshClone(remote: string): string {
  const clone = join(temporary(), "other");
  git(tmpdir(), "clone", "--quiet", remote, clone);
  return clone;
}

describe("publishing a committed result's branch on a bare remote", () => {
  it("pushes the branch from the worker that holds the commits; publishing again changes nothing", async () => {
    const remote = bareRemote();
    const { clone, head } = attemptClone(remote);
    const published = { job: "job-1", branch: "outpost/queue/job-1", head };
    await pushBranch(clone, published);
    expect(git(remote, "rev-parse", `refs/heads/${published.branch}`)).toBe(head);
    await publishBranch(clone, published, fsTransport({ directory: temporary() }));
    expect(git(remote, "rev-parse", `refs/heads/${published.branch}`)).toBe(head);
    expect(git(remote, "rev-parse", "main")).not.toBe(head);
  });

  it("another worker that never saw the commits publishes them from the stored bundle", async () => {
    const remote = bareRemote();
    const { clone, head } = attemptClone(remote);
    const transport = fsTransport({ directory: temporary() });
    const bundle = { key: "q/job-2/commits-1.bundle", ref: "refs/heads/attempt" };
    await transport.write(bundle.key, await bundleCommits(clone, git(clone, "rev-parse", "origin/main"), bundle.ref), { ifRevision: null });
    const other = freshClone(remote);
    expect(() => git(other, "cat-file", "-e", `${head}^{commit}`)).toThrow();

    await publishBranch(other, { job: "job-2", branch: "outpost/queue/job-2", head, bundle }, transport);
    expect(git(remote, "rev-parse", "refs/heads/outpost/queue/job-2")).toBe(head);
    expect(git(remote, "show", `${head}:work.txt`)).toBe("work");
    // Only the objects came from the bundle: no ref of it was written in the other worker's clone.
    expect(git(other, "for-each-ref", "--format=%(refname)", "refs/heads/")).toBe("refs/heads/main");
  });

  describe("a stored bundle is untrusted input: refused with code transport, the branch left alone", () => {
    async function refused(bytes: Uint8Array, head: string, remote: string, why: RegExp): Promise<void> {
      const transport = fsTransport({ directory: temporary() });
      const bundle = { key: "q/job-3/commits-1.bundle", ref: "refs/heads/attempt" };
      await transport.write(bundle.key, bytes, { ifRevision: null });
      const other = freshClone(remote);
      await expect(publishBranch(other, { job: "job-3", branch: "outpost/queue/job-3", head, bundle }, transport)).rejects.toMatchObject({
        code: "transport",
        message: expect.stringMatching(why),
      });
      expect(git(remote, "for-each-ref", "refs/heads/outpost/")).toBe("");
    }

    it("bytes that are not a bundle", async () => {
      const remote = bareRemote();
      const { head } = attemptClone(remote);
      await refused(new TextEncoder().encode("# v2 git bundle\nnot really\n"), head, remote, /commits-1\.bundle were refused/);
    });

    it("a valid bundle that does not hold the recorded head", async () => {
      const remote = bareRemote();
      const { clone } = attemptClone(remote);
      const bytes = await bundleCommits(clone, git(clone, "rev-parse", "origin/main"), "refs/heads/attempt");
      await refused(bytes, "0123456789abcdef0123456789abcdef01234567", remote, /cat-file/);
    });

    const gitInput = (clone: string, args: string[], input: string) =>
      execFileSync("git", args, { cwd: clone, input, encoding: "utf8" }).trim();
    // Plumbing in the attempt's clone that writes objects fsck rejects; each returns the forged commit.
    const forgeries: [string, (clone: string) => string, RegExp][] = [
      [
        "a tree with a .git entry",
        (clone) => {
          const blob = gitInput(clone, ["hash-object", "-w", "--stdin"], "[core]\n");
          const inner = gitInput(clone, ["mktree"], `100644 blob ${blob}\tconfig\n`);
          const tree = gitInput(clone, ["mktree"], `040000 tree ${inner}\t.git\n`);
          return git(clone, ...IDENTITY, "commit-tree", tree, "-p", "HEAD", "-m", "planted");
        },
        /hasDotgit/,
      ],
      [
        "a commit whose committer has no email",
        (clone) => {
          const header = [`tree ${git(clone, "rev-parse", "HEAD^{tree}")}`, `parent ${git(clone, "rev-parse", "HEAD")}`];
          const text = [...header, "author A <a@outpost.invalid> 1 +0000", "committer nobody 1 +0000", "", "planted", ""].join("\n");
          return gitInput(clone, ["hash-object", "-t", "commit", "-w", "--literally", "--stdin"], text);
        },
        /missingEmail/,
      ],
    ];
    it.each(forgeries)("a bundle carrying objects fsck rejects (%s)", async (_name, forge, why) => {
      const remote = bareRemote();
      const { clone } = attemptClone(remote);
      const head = forge(clone);
      git(clone, "update-ref", "refs/heads/attempt", head);
      const bundle = join(temporary(), "planted.bundle");
      git(clone, "bundle", "create", "--quiet", bundle, "^origin/main", "refs/heads/attempt");
      await refused(readFileSync(bundle), head, remote, why);
    });

    it("no bundle stored for a head this worker lacks", async () => {
      const remote = bareRemote();
      const { head } = attemptClone(remote);
      const other = freshClone(remote);
      await expect(
        publishBranch(other, { job: "job-4", branch: "outpost/queue/job-4", head }, fsTransport({ directory: temporary() })),
      ).rejects.toMatchObject({
        code: "transport",
      });
      expect(git(remote, "for-each-ref", "refs/heads/outpost/")).toBe("");
    });
  });
});
