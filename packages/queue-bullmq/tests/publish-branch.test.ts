import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attemptRef, publishOwnAttempt, pushAttempt } from "../src/publish-branch.js";
import { bareRemote, git } from "./support/fleet.js";

describe("publishing an attempt's work on a bare remote", () => {
  it("moves the branch and drops the attempt ref in one push; again, when another worker already did, changes nothing", async () => {
    const remote = bareRemote();
    const clone = join(mkdtempSync(join(tmpdir(), "outpost-queue-publish-")), "clone");
    git(tmpdir(), "clone", "--quiet", remote, clone);
    writeFileSync(join(clone, "work.txt"), "work\n");
    git(clone, "add", "work.txt");
    git(clone, "-c", "user.name=Agent", "-c", "user.email=agent@outpost.invalid", "commit", "--quiet", "-m", "work");
    const head = git(clone, "rev-parse", "HEAD");
    const published = { branch: "outpost/queue/job-1", head, attemptRef: attemptRef("q", "job-1", 1) };
    await pushAttempt(clone, "main", published.attemptRef);
    expect(git(remote, "rev-parse", published.attemptRef)).toBe(head);

    await publishOwnAttempt(clone, published);
    expect(git(remote, "rev-parse", `refs/heads/${published.branch}`)).toBe(head);
    expect(git(remote, "for-each-ref", "refs/outpost/")).toBe("");
    // The attempt ref is gone now: the one push fails, the idempotent publication finds the branch in place.
    await publishOwnAttempt(clone, published);
    expect(git(remote, "rev-parse", `refs/heads/${published.branch}`)).toBe(head);
    expect(git(remote, "rev-parse", "main")).not.toBe(head);
  });
});
