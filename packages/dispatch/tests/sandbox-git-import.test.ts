import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { findRepository } from "../src/git/repository.js";
import { createSandboxGit } from "../src/git/sandbox-git.js";
import { importSandboxCommits } from "../src/git/import-sandbox-commits.js";
import type { Workspace } from "../src/workspace/workspace.js";

const scratches: string[] = [];
afterAll(() => scratches.forEach((directory) => rmSync(directory, { recursive: true, force: true })));

function git(directory: string, args: string[], variables: Record<string, string> = {}): string {
  return execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.invalid", ...args], {
    cwd: directory,
    encoding: "utf8",
    env: { ...process.env, ...variables },
    stdio: ["pipe", "pipe", "pipe"],
  }).trim();
}

/** A current-mode workspace on a fresh repository, and the sandbox's git directory made for it. */
async function prepared() {
  const root = mkdtempSync(join(tmpdir(), "outpost-import-"));
  scratches.push(root);
  git(root, ["init", "-q", "-b", "main"]);
  writeFileSync(join(root, "README.md"), "hello\n");
  git(root, ["add", "README.md"]);
  git(root, ["commit", "-q", "-m", "initial"]);
  const repository = await findRepository(root);
  const workspace: Workspace = {
    mode: "current",
    root,
    commonDirectory: repository.commonDirectory,
    gitDirectory: repository.gitDirectory,
    directory: root,
    branch: "main",
    baseline: repository.head!.commit,
    created: false,
    untrackedCopies: [],
  };
  const sandbox = await createSandboxGit(workspace);
  // What the agent does inside the sandbox: its git sees only the private directory.
  const inSandbox = { GIT_DIR: sandbox.directory, GIT_WORK_TREE: root };
  return { root, workspace, sandbox, inSandbox };
}

describe("importing the sandbox's commits", () => {
  it("brings the commits onto the branch and re-reads the index, also from a directory owned by another user", async () => {
    const { root, workspace, sandbox, inSandbox } = await prepared();
    expect(git(root, ["status", "--porcelain"], inSandbox)).toBe("");
    writeFileSync(join(root, "agent.txt"), "agent\n");
    git(root, ["add", "agent.txt"], inSandbox);
    git(root, ["commit", "-q", "-m", "from the sandbox"], inSandbox);
    if (process.getuid?.() === 0) execFileSync("chown", ["-R", "1000:1000", sandbox.directory]);
    const tip = await importSandboxCommits(workspace, sandbox, "test-import");
    expect(tip).toBe(git(root, ["rev-parse", "main"]));
    expect(git(root, ["log", "-1", "--format=%s"])).toBe("from the sandbox");
    expect(git(root, ["status", "--porcelain"])).toBe("");
    expect(git(root, ["for-each-ref", "refs/outpost"])).toBe("");
    await sandbox.dispose();
    expect(existsSync(sandbox.directory)).toBe(false);
  });

  it("refuses a commit whose tree holds a .git entry (fsck), leaving the host branch where it was", async () => {
    const { root, workspace, sandbox, inSandbox } = await prepared();
    const blob = git(root, ["hash-object", "-w", "--stdin"], inSandbox);
    const tree = execFileSync("git", ["mktree"], {
      cwd: root,
      input: `100644 blob ${blob}\t.git\n`,
      encoding: "utf8",
      env: { ...process.env, ...inSandbox },
    }).trim();
    const commit = git(root, ["commit-tree", tree, "-p", workspace.baseline, "-m", "planted .git"], inSandbox);
    mkdirSync(join(sandbox.directory, "refs", "heads"), { recursive: true });
    writeFileSync(join(sandbox.directory, "refs", "heads", "main"), `${commit}\n`);
    const failure = await importSandboxCommits(workspace, sandbox, "test-fsck").catch((error: unknown) => error);
    expect(isOutpostError(failure, "workspace"), String(failure)).toBe(true);
    expect((failure as Error).message).toMatch(/dotgit|\.git/i);
    expect(git(root, ["rev-parse", "main"])).toBe(workspace.baseline);
    expect(git(root, ["for-each-ref", "refs/outpost"])).toBe("");
  });

  it("moves nothing when the agent committed nothing, and leaves no temporary ref", async () => {
    const { root, workspace, sandbox } = await prepared();
    expect(await importSandboxCommits(workspace, sandbox, "test-nothing")).toBeUndefined();
    expect(git(root, ["rev-parse", "main"])).toBe(workspace.baseline);
    expect(git(root, ["for-each-ref", "refs/outpost"])).toBe("");
  });

  it("refuses with conflict when the branch moved on the host meanwhile, and keeps the commits as a ref", async () => {
    const { root, workspace, sandbox, inSandbox } = await prepared();
    writeFileSync(join(root, "agent.txt"), "agent\n");
    git(root, ["add", "agent.txt"], inSandbox);
    git(root, ["commit", "-q", "-m", "from the sandbox"], inSandbox);
    const sandboxTip = git(root, ["rev-parse", "HEAD"], inSandbox);
    git(root, ["commit", "-q", "--allow-empty", "-m", "the user's own"]);
    const hostTip = git(root, ["rev-parse", "main"]);
    const failure = await importSandboxCommits(workspace, sandbox, "test-moved").catch((error: unknown) => error);
    expect(isOutpostError(failure, "conflict"), String(failure)).toBe(true);
    expect((failure as Error).message).toContain("refs/outpost/import/test-moved");
    expect(git(root, ["rev-parse", "main"])).toBe(hostTip);
    expect(git(root, ["rev-parse", "refs/outpost/import/test-moved"])).toBe(sandboxTip);
  });

  it("moves a detached HEAD by compare-and-swap when the workspace has no branch", async () => {
    const { root, workspace, sandbox, inSandbox } = await prepared();
    git(root, ["checkout", "-q", "--detach"]);
    writeFileSync(join(root, "detached.txt"), "agent\n");
    git(root, ["add", "detached.txt"], inSandbox);
    git(root, ["commit", "-q", "-m", "detached work"], inSandbox);
    const tip = await importSandboxCommits({ ...workspace, branch: undefined }, { ...sandbox, reference: "HEAD" }, "test-detached");
    expect(tip).toBe(git(root, ["rev-parse", "HEAD"]));
    expect(git(root, ["rev-parse", "main"])).toBe(workspace.baseline);
    expect(git(root, ["status", "--porcelain"])).toBe("");
  });
});
