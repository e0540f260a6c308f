import { execFileSync } from "node:child_process";
import { chmod, lstat, mkdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { dockerProvider } from "@outpost/provider-docker";
import { BUSYBOX_IMAGE, describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { contextFor, hostWorkspace, sh, withDockerLease } from "./docker-fixtures.js";

function git(directory: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "safe.directory=*", "-C", directory, ...args], {
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Host",
      GIT_AUTHOR_EMAIL: "host@example.invalid",
      GIT_COMMITTER_NAME: "Host",
      GIT_COMMITTER_EMAIL: "host@example.invalid",
    },
  });
}

describeGated("docker placement", await dockerGate({ images: [TEST_IMAGE, BUSYBOX_IMAGE] }), () => {
  it("mounted: a linked worktree's git works inside the container, and its commit lands on the host branch", async () => {
    const scratch = await hostWorkspace();
    try {
      const repository = join(scratch.directory, "repo");
      const worktree = join(scratch.directory, "worktree");
      await mkdir(repository);
      git(repository, "init", "-q", "-b", "main");
      await writeFile(join(repository, "README.md"), "hello\n");
      git(repository, "add", "README.md");
      git(repository, "commit", "-q", "-m", "initial");
      git(repository, "worktree", "add", "-q", "-b", "agent", worktree);
      execFileSync("chown", ["-R", "1000:1000", scratch.directory]);
      const lease = await dockerProvider({ network: "none" }).acquire(
        contextFor(worktree, { repository, gitDirectories: [join(repository, ".git")] }),
      );
      try {
        const identity = "-c user.name=Agent -c user.email=agent@example.invalid";
        const result = await sh(
          lease,
          `echo change > agent.txt && git add agent.txt && git ${identity} commit -q -m "from the container" && git log --oneline | head -n 1`,
        );
        expect(result.stderr).toBe("");
        expect(result.status).toBe(0);
        expect(result.stdout).toMatch(/from the container/);
      } finally {
        await lease.release();
      }
      expect(git(repository, "log", "--format=%s", "-n", "1", "agent").trim()).toBe("from the container");
      expect(git(worktree, "status", "--porcelain")).toBe("");
    } finally {
      await scratch.dispose();
    }
  });

  it("isolated: the worktree is copied in with modes, links and empty directories, owned by the user; the host is untouched", async () => {
    const scratch = await hostWorkspace();
    try {
      const source = scratch.directory;
      await mkdir(join(source, "bin"));
      await writeFile(join(source, "bin", "run.sh"), "#!/bin/sh\necho ran\n");
      await chmod(join(source, "bin", "run.sh"), 0o751);
      await mkdir(join(source, "empty"));
      await symlink("bin/run.sh", join(source, "link-to-run"));
      await writeFile(join(source, "data.bin"), Buffer.from([0, 1, 2, 255, 254]));
      const lease = await dockerProvider({ image: BUSYBOX_IMAGE, mode: "isolated", network: "none" }).acquire(contextFor(source));
      try {
        const listing = await sh(
          lease,
          "stat -c '%n %a %u' bin/run.sh empty; readlink link-to-run; ./link-to-run; od -An -tu1 data.bin; grep -c \" $PWD \" /proc/mounts",
        );
        expect(listing.stdout.split("\n").map((line) => line.trim().replace(/\s+/g, " "))).toEqual([
          "bin/run.sh 751 1000",
          "empty 755 1000",
          "bin/run.sh",
          "ran",
          "0 1 2 255 254",
          "0",
          "",
        ]);
        await sh(lease, "echo changed > data.bin && rm -r empty");
        expect(await readFile(join(source, "data.bin"))).toEqual(Buffer.from([0, 1, 2, 255, 254]));
        expect((await lstat(join(source, "empty"))).isDirectory()).toBe(true);
        expect(await readlink(join(source, "link-to-run"))).toBe("bin/run.sh");
      } finally {
        await lease.release();
      }
    } finally {
      await scratch.dispose();
    }
  });

  it("isolated: a linked worktree and its git directory are copied in; git works; /tmp keeps its mode", async () => {
    const scratch = await hostWorkspace();
    try {
      const repository = join(scratch.directory, "repo");
      const worktree = join(scratch.directory, "worktree");
      await mkdir(repository);
      git(repository, "init", "-q", "-b", "main");
      await writeFile(join(repository, "README.md"), "hello\n");
      git(repository, "add", "README.md");
      git(repository, "commit", "-q", "-m", "initial");
      git(repository, "worktree", "add", "-q", "-b", "agent", worktree);
      const lease = await dockerProvider({ mode: "isolated", network: "none" }).acquire(
        contextFor(worktree, { repository, gitDirectories: [join(repository, ".git")] }),
      );
      try {
        const result = await sh(
          lease,
          'git log --format=%s -n 1 && git status --porcelain && stat -c %a /tmp && grep -c " $PWD " /proc/mounts',
        );
        expect(result.stderr).toBe("");
        expect(result.stdout).toBe("initial\n1777\n0\n");
      } finally {
        await lease.release();
      }
    } finally {
      await scratch.dispose();
    }
  });

  it("isolated: a worktree holding an absolute link is refused (code workspace) and no container is left", async () => {
    const scratch = await hostWorkspace();
    try {
      await symlink("/etc/passwd", join(scratch.directory, "escape"));
      const failure = await dockerProvider({ image: BUSYBOX_IMAGE, mode: "isolated" })
        .acquire(contextFor(scratch.directory))
        .catch((error: unknown) => error);
      expect(isOutpostError(failure, "workspace"), String(failure)).toBe(true);
      expect((failure as Error).message).toMatch(/escape.*absolute/);
    } finally {
      await scratch.dispose();
    }
  });

  it("a command directory that does not exist is a workspace error; a missing executable a process error", async () => {
    await withDockerLease({ image: BUSYBOX_IMAGE }, async (lease) => {
      const directory = await lease.invoke({ executable: "true", directory: "no/such/dir" }).catch((error: unknown) => error);
      expect(isOutpostError(directory, "workspace"), String(directory)).toBe(true);
      const missing = await lease.invoke({ executable: "no-such-program-outpost" }).catch((error: unknown) => error);
      expect(isOutpostError(missing, "process"), String(missing)).toBe(true);
      expect((await lease.invoke({ executable: "sh", arguments: ["-c", "exit 127"] })).status).toBe(127);
    });
  });
});
