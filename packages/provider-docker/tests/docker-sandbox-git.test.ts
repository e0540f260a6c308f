import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import { dockerProvider } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { contextFor, hostWorkspace, sh } from "./docker-fixtures.js";

function git(directory: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "safe.directory=*", "-c", "user.name=Host", "-c", "user.email=host@example.invalid", "-C", directory, ...args],
    { encoding: "utf8" },
  ).trim();
}

/** A private git directory as the engine makes one: HEAD on `branch` at `commit`, the index, host objects as alternate. */
function privateGitDirectory(path: string, common: string, branch: string, commit: string, index: string): void {
  mkdirSync(join(path, "objects", "info"), { recursive: true });
  mkdirSync(join(path, "refs", "heads"), { recursive: true });
  writeFileSync(join(path, "objects", "info", "alternates"), `${join(common, "objects")}\n`);
  writeFileSync(join(path, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n");
  writeFileSync(join(path, "HEAD"), `ref: refs/heads/${branch}\n`);
  writeFileSync(join(path, "refs", "heads", branch), `${commit}\n`);
  copyFileSync(index, join(path, "index"));
}

describeGated("docker: a private git directory instead of the host's", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  for (const layout of ["linked worktree", "main checkout"] as const) {
    it(`${layout}: the container commits into the private directory; the host's git directory is out of reach`, async () => {
      const scratch = await hostWorkspace();
      try {
        const repository = join(scratch.directory, "repo");
        const worktree = layout === "main checkout" ? repository : join(scratch.directory, "worktree");
        mkdirSync(repository);
        git(repository, "init", "-q", "-b", "main");
        writeFileSync(join(repository, "README.md"), "hello\n");
        git(repository, "add", "README.md");
        git(repository, "commit", "-q", "-m", "initial");
        if (layout === "linked worktree") git(repository, "worktree", "add", "-q", "-b", "agent", worktree);
        const branch = layout === "linked worktree" ? "agent" : "main";
        const baseline = git(repository, "rev-parse", "HEAD");
        const common = join(repository, ".git");
        const privateGit = join(scratch.directory, "private-git");
        privateGitDirectory(privateGit, common, branch, baseline, resolve(worktree, git(worktree, "rev-parse", "--git-path", "index")));
        execFileSync("chown", ["-R", "1000:1000", scratch.directory]);
        const dotGitBefore = layout === "linked worktree" ? readFileSync(join(worktree, ".git"), "utf8") : "";
        const hooksBefore = readdirSync(join(common, "hooks")).sort();
        const lease = await dockerProvider({ network: "none" }).acquire(
          contextFor(worktree, { repository, gitDirectories: [], git: { directory: privateGit, objects: [join(common, "objects")] } }),
        );
        try {
          const identity = "-c user.name=Agent -c user.email=agent@example.invalid";
          const committed = await sh(
            lease,
            `git status --porcelain && echo change > agent.txt && git add agent.txt && git ${identity} commit -q -m ` +
              `"from the container" && git rev-parse --git-common-dir && git config core.fsmonitor "touch /tmp/planted"`,
          );
          expect(committed.stderr).toBe("");
          expect(committed.stdout.trim()).toBe(layout === "linked worktree" ? privateGit : ".git");
          const reach = await sh(lease, `touch ${common}/objects/planted; touch ${common}/hooks/planted; echo x > .git; ls ${common}`);
          expect(reach.stderr).toMatch(/objects\/planted'?: Read-only file system/);
          expect(reach.stderr).toMatch(/hooks\/planted'?: No such file or directory/);
          expect(reach.stderr).toMatch(/\.git'?: (Read-only file system|Is a directory)/);
          expect(reach.stdout.trim()).toBe("objects");
        } finally {
          await lease.release();
        }
        const tip = git(repository, "--git-dir", privateGit, "rev-parse", `refs/heads/${branch}`);
        expect(git(repository, "--git-dir", privateGit, "log", "-1", "--format=%s", tip)).toBe("from the container");
        expect(git(repository, "rev-parse", branch)).toBe(baseline);
        expect(readFileSync(join(common, "config"), "utf8")).not.toMatch(/fsmonitor/);
        expect(readdirSync(join(common, "hooks")).sort()).toEqual(hooksBefore);
        if (layout === "linked worktree") expect(readFileSync(join(worktree, ".git"), "utf8")).toBe(dotGitBefore);
      } finally {
        await scratch.dispose();
      }
    });
  }

  it("isolated: the private directory is copied in as the root's .git with its borrowed objects; the host is untouched", async () => {
    const scratch = await hostWorkspace();
    try {
      const repository = join(scratch.directory, "repo");
      const worktree = join(scratch.directory, "worktree");
      mkdirSync(repository);
      git(repository, "init", "-q", "-b", "main");
      writeFileSync(join(repository, "README.md"), "hello\n");
      git(repository, "add", "README.md");
      git(repository, "commit", "-q", "-m", "initial");
      git(repository, "worktree", "add", "-q", "-b", "agent", worktree);
      const baseline = git(repository, "rev-parse", "HEAD");
      const common = join(repository, ".git");
      const privateGit = join(scratch.directory, "private-git");
      privateGitDirectory(privateGit, common, "agent", baseline, resolve(worktree, git(worktree, "rev-parse", "--git-path", "index")));
      const lease = await dockerProvider({ mode: "isolated", network: "none" }).acquire(
        contextFor(worktree, { repository, gitDirectories: [], git: { directory: privateGit, objects: [join(common, "objects")] } }),
      );
      try {
        const result = await sh(
          lease,
          `git status --porcelain && test -d .git && echo x > a.txt && git add a.txt && git -c user.name=A ` +
            `-c user.email=a@example.invalid commit -q -m inside && git log --format=%s | tr '\\n' ' '; ` +
            `` +
            `ls ${common}`,
        );
        expect(result.stderr).toBe("");
        expect(result.stdout).toBe("inside initial objects\n");
      } finally {
        await lease.release();
      }
      expect(git(repository, "--git-dir", privateGit, "rev-parse", "refs/heads/agent")).toBe(baseline);
    } finally {
      await scratch.dispose();
    }
  });
});
