import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pushBranch } from "../src/publish-branch.js";
import { bareRemote, git } from "./support/fleet.js";

const temporary = () => mkdtempSync(join(tmpdir(), "outpost-queue-cas-"));
const IDENTITY = ["-c", "user.name=Person", "-c", "user.email=person@outpost.invalid"];

/** A clone of `remote` with one commit of `file` on top of main; returns its directory and head. */
function commitOnMain(remote: string, file: string): { clone: string; head: string } {
  const clone = join(temporary(), "clone");
  git(tmpdir(), "clone", "--quiet", remote, clone);
  writeFileSync(join(clone, file), `${file}\n`);
  git(clone, "add", file);
  git(clone, ...IDENTITY, "commit", "--quiet", "-m", file);
  return { clone, head: git(clone, "rev-parse", "HEAD") };
}

describe("a job's publication never drops commits it did not write", () => {
  it("moves a shared branch only forward; a branch that moved under the job fails with conflict and keeps the job's commits", async () => {
    const remote = bareRemote();
    const job = commitOnMain(remote, "job.txt");
    // A person pushes to the branch while the job runs.
    const person = commitOnMain(remote, "person.txt");
    git(person.clone, "push", "--quiet", "origin", "HEAD:refs/heads/feature");
    const failure = pushBranch(job.clone, {
      job: "job-a",
      branch: "feature",
      head: job.head,
      bundle: { key: "q/job-a/commits-1.bundle", ref: "x" },
    });
    await expect(failure).rejects.toMatchObject({ code: "conflict", details: { kept: "refs/outpost/kept/job-a", dropped: 1 } });
    await expect(failure).rejects.toThrow(
      /would drop 1 commit\(s\).*git fetch origin refs\/outpost\/kept\/job-a.*q\/job-a\/commits-1\.bundle/,
    );
    expect(git(remote, "rev-parse", "refs/heads/feature")).toBe(person.head);
    expect(git(remote, "rev-parse", "refs/outpost/kept/job-a")).toBe(job.head);
    // Publishing again (another attempt at the same publication) keeps the same ref and still refuses.
    await expect(pushBranch(job.clone, { job: "job-a", branch: "feature", head: job.head })).rejects.toMatchObject({ code: "conflict" });
    expect(git(remote, "rev-parse", "refs/heads/feature")).toBe(person.head);

    // A fast-forward goes through: the person's commit stays under the job's.
    git(job.clone, "fetch", "--quiet", "origin", "feature");
    git(job.clone, ...IDENTITY, "rebase", "--quiet", "FETCH_HEAD");
    const rebased = git(job.clone, "rev-parse", "HEAD");
    await pushBranch(job.clone, { job: "job-a", branch: "feature", head: rebased });
    expect(git(remote, "rev-parse", "refs/heads/feature")).toBe(rebased);
    expect(git(remote, "rev-parse", "refs/heads/feature^")).toBe(person.head);
    // A head the branch already contains changes nothing.
    await pushBranch(job.clone, { job: "job-a", branch: "feature", head: person.head });
    expect(git(remote, "rev-parse", "refs/heads/feature")).toBe(rebased);
  });

  it("the job's own branch is a compare-and-swap on its absence: a commit someone put there is not overwritten", async () => {
    const remote = bareRemote();
    const job = commitOnMain(remote, "job.txt");
    await pushBranch(job.clone, { job: "job-b", branch: "outpost/queue/job-b", head: job.head });
    // Publishing the same head again (a worker killed after its push landed) is recognised.
    await pushBranch(job.clone, { job: "job-b", branch: "outpost/queue/job-b", head: job.head });
    expect(git(remote, "rev-parse", "refs/heads/outpost/queue/job-b")).toBe(job.head);

    const other = commitOnMain(remote, "other.txt");
    git(other.clone, "push", "--quiet", "origin", "HEAD:refs/heads/outpost/queue/job-c");
    await expect(pushBranch(job.clone, { job: "job-c", branch: "outpost/queue/job-c", head: job.head })).rejects.toMatchObject({
      code: "conflict",
    });
    expect(git(remote, "rev-parse", "refs/heads/outpost/queue/job-c")).toBe(other.head);
    expect(git(remote, "rev-parse", "refs/outpost/kept/job-c")).toBe(job.head);
  });

  it("an unreachable remote keeps its own failure, retried, not a conflict", async () => {
    const remote = bareRemote();
    const job = commitOnMain(remote, "job.txt");
    git(job.clone, "remote", "set-url", "origin", join(temporary(), "gone.git"));
    await expect(pushBranch(job.clone, { job: "job-d", branch: "feature", head: job.head })).rejects.toMatchObject({
      code: "workspace",
      details: { classification: "unavailable" },
    });
  });
});
