import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { git, gitStatus } from "../src/git/run-git.js";

const scratches: string[] = [];
afterAll(() => scratches.forEach((directory) => rmSync(directory, { recursive: true, force: true })));

const IDENTITY = { "user.name": "Host", "user.email": "host@example.invalid" };

/** Plain git, as a user would run it: no hardening. */
function plainGit(directory: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Host", "-c", "user.email=host@example.invalid", ...args], {
    cwd: directory,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * A repository with every vector a sandbox could plant in `.git`: each one, if it ran, creates its own
 * marker file. Returns the repository and the marker directory.
 */
function plantedRepository(): { repository: string; markers: string } {
  const scratch = mkdtempSync(join(tmpdir(), "outpost-hardened-git-"));
  scratches.push(scratch);
  const repository = join(scratch, "repo");
  const markers = join(scratch, "markers");
  mkdirSync(markers);
  mkdirSync(repository);
  plainGit(repository, "init", "-q", "-b", "main");
  writeFileSync(join(repository, "README.md"), "hello\n");
  plainGit(repository, "add", "README.md");
  plainGit(repository, "commit", "-q", "-m", "initial");
  plainGit(repository, "branch", "work");
  const script = (name: string): string => {
    const path = join(scratch, `${name}.sh`);
    writeFileSync(path, `#!/bin/sh\ntouch ${join(markers, name)}\ncat >/dev/null 2>&1 || true\nexit 0\n`);
    chmodSync(path, 0o755);
    return path;
  };
  const hooks = [
    "pre-commit",
    "post-commit",
    "post-merge",
    "post-checkout",
    "reference-transaction",
    "post-rewrite",
    "pre-auto-gc",
    "post-index-change",
  ];
  for (const hook of hooks) {
    const path = join(repository, ".git", "hooks", hook);
    writeFileSync(path, `#!/bin/sh\ntouch ${join(markers, `hook-${hook}`)}\n`);
    chmodSync(path, 0o755);
  }
  const hooksPath = join(scratch, "planted-hooks");
  mkdirSync(hooksPath);
  for (const hook of hooks) {
    writeFileSync(join(hooksPath, hook), `#!/bin/sh\ntouch ${join(markers, `hooks-path-${hook}`)}\n`);
    chmodSync(join(hooksPath, hook), 0o755);
  }
  const config = (key: string, value: string) => plainGit(repository, "config", key, value);
  config("core.hooksPath", hooksPath);
  config("core.fsmonitor", script("fsmonitor"));
  config("core.sshCommand", script("ssh-command"));
  config("core.askPass", script("askpass"));
  config("core.pager", script("pager"));
  config("core.editor", script("editor"));
  config("diff.external", script("external-diff"));
  config("diff.planted.textconv", script("textconv"));
  writeFileSync(join(repository, ".git", "info", "attributes"), "*.md diff=planted\n");
  return { repository, markers };
}

describe("hardened host git", () => {
  it("runs no hook, fsmonitor, external diff, textconv, pager, editor or ssh command planted in the repository", async () => {
    const { repository, markers } = plantedRepository();
    // The planted repository really is armed: plain git runs the planted hooks path and fsmonitor.
    const armed = plantedRepository();
    plainGit(armed.repository, "commit", "-q", "--allow-empty", "-m", "armed");
    expect(existsSync(join(armed.markers, "hooks-path-pre-commit"))).toBe(true);
    expect(existsSync(join(armed.markers, "fsmonitor"))).toBe(true);

    const worktree = join(repository, "..", "worktree");
    await git(repository, ["worktree", "add", "--quiet", worktree, "work"]);
    writeFileSync(join(worktree, "README.md"), "changed\n");
    await git(worktree, ["status", "--porcelain"]);
    await gitStatus(worktree, ["diff", "--quiet", "--no-ext-diff", "--no-textconv"]);
    await git(worktree, ["add", "README.md"]);
    await git(worktree, ["commit", "-q", "-m", "work"], { config: IDENTITY });
    await git(repository, ["merge", "--ff-only", "--quiet", "refs/heads/work"]);
    await git(repository, ["update-ref", "refs/heads/extra", "HEAD"]);
    await git(repository, ["worktree", "remove", worktree]);
    await git(repository, ["branch", "-D", "work", "extra"]);
    const fetched = await gitStatus(repository, ["fetch", "--quiet", "ssh://planted.invalid/repo", "main"]);
    expect(fetched.status).not.toBe(0);
    expect(fetched.stderr).toMatch(/transport 'ssh' not allowed/);
    expect(execFileSync("ls", ["-A", markers], { encoding: "utf8" })).toBe("");
  }, 30_000);

  it("ignores git variables inherited from the invoking shell", async () => {
    const { repository, markers } = plantedRepository();
    const elsewhere = mkdtempSync(join(tmpdir(), "outpost-hardened-elsewhere-"));
    scratches.push(elsewhere);
    process.env.GIT_DIR = elsewhere;
    process.env.GIT_EXTERNAL_DIFF = join(markers, "..", "external-diff.sh");
    try {
      expect(await git(repository, ["rev-parse", "--absolute-git-dir"])).toBe(join(repository, ".git"));
      writeFileSync(join(repository, "README.md"), "changed\n");
      await gitStatus(repository, ["diff", "--no-textconv", "--no-ext-diff"]);
    } finally {
      delete process.env.GIT_DIR;
      delete process.env.GIT_EXTERNAL_DIFF;
    }
    expect(execFileSync("ls", ["-A", markers], { encoding: "utf8" })).toBe("");
  });

  it("is the only way any package's code starts git on the host", async () => {
    const packages = join(import.meta.dirname, "..", "..");
    const runner = join(packages, "dispatch", "src", "git", "run-git.ts");
    // Runs git inside a remote sandbox through lease.invoke, never on the host.
    const sandboxRunner = join(packages, "dispatch", "src", "remote", "sandbox-git-command.ts");
    // The kit's script agent program is an agent: it commits with git where agents run, in the sandbox.
    const scriptAgentProgram = join(packages, "testkit", "src", "script-agent", "script-agent-source.ts");
    const offenders: string[] = [];
    for (const name of readdirSync(packages)) {
      // e2e is private test support: its scratch repositories are the tests' own.
      if (name === "e2e") continue;
      const source = join(packages, name, "src");
      if (!existsSync(source)) continue;
      for (const file of readdirSync(source, { recursive: true })
        .map(String)
        .filter((path) => /\.[cm]?[jt]s$/.test(path))) {
        const path = join(source, file);
        if (path === runner || path === sandboxRunner || path === scriptAgentProgram) continue;
        const text = readFileSync(path, "utf8");
        if (/(spawn|execFile|execFileSync|spawnSync|exec|execSync)\(\s*["'`]git\b|executable:\s*["'`]git["'`]/.test(text))
          offenders.push(path);
      }
    }
    expect(offenders).toEqual([]);
  });
});
