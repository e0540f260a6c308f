import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const HOOKS = [
  "pre-commit",
  "post-commit",
  "post-merge",
  "post-checkout",
  "reference-transaction",
  "post-index-change",
  "pre-auto-gc",
  "post-rewrite",
];

/**
 * A hostile agent's script: arms every git vector in the git directory it sees, with commands that leave
 * a marker in `markers` (a host path, never mounted in a container) when they run, and tries to write the
 * host's git directory by its host path. It reports the markers its own commits left where it runs.
 * A planted commondir breaks every later git command of the agent, so it comes last and only on request.
 */
export function hostileGitScript(
  markers: string,
  hostGit: string,
  hostRoot: string,
  options: { readonly commitAfterPlanting: boolean; readonly plantCommondir: boolean },
): string {
  const touch = (name: string) => `touch ${markers}/${name}`;
  const commit = `git -c user.name=Agent -c user.email=agent@example.invalid commit -q -m "planted vectors"`;
  return [
    `mkdir -p ${markers}`,
    ...(options.commitAfterPlanting ? [] : ["echo agent > agent-first.txt", "git add agent-first.txt", commit]),
    `GD=$(git rev-parse --git-common-dir)`,
    `mkdir -p "$GD/hooks"`,
    ...HOOKS.map((hook) => `printf '#!/bin/sh\\n${touch(`hook-${hook}`)}\\n' > "$GD/hooks/${hook}" && chmod +x "$GD/hooks/${hook}"`),
    `mkdir -p planted-hooks`,
    ...HOOKS.map(
      (hook) => `printf '#!/bin/sh\\n${touch(`hooks-path-${hook}`)}\\n' > planted-hooks/${hook} && chmod +x planted-hooks/${hook}`,
    ),
    `git config core.fsmonitor "${touch("fsmonitor")}; false"`,
    `git config core.sshCommand "${touch("ssh-command")}; false"`,
    `git config diff.external "${touch("external-diff")}; false"`,
    `git config diff.planted.textconv "${touch("textconv")}; cat"`,
    `git config filter.planted.clean "${touch("filter-clean")}; cat"`,
    `git config filter.planted.smudge "${touch("filter-smudge")}; cat"`,
    `printf '[core]\\n\\tfsmonitor = ${touch("include-fsmonitor")}; false\\n' > planted.config`,
    // Attributes apply from the work tree even untracked; the agent's own git after this point runs what it
    // planted where it runs (on the host with the local provider), so only a sandboxed agent commits them.
    `printf '*.txt filter=planted\\n*.md diff=planted\\n' > .gitattributes`,
    ...(options.commitAfterPlanting ? ["git add .gitattributes"] : []),
    `for target in "${hostGit}" "${hostGit}/hooks" "${hostRoot}/.git"; do touch "$target/planted" 2>/dev/null; done; true`,
    ...(options.commitAfterPlanting ? [commit] : []),
    // The second set needs the first commit made: from now on these win over the hooks directory.
    `git config include.path "${hostRoot}/planted.config"`,
    `git config core.hooksPath "${hostRoot}/planted-hooks"`,
    // A kept worktree's .git file (current mode shows .outpost/workspaces) pointed at an armed repository.
    `git init -q evil-repo && git -C evil-repo config core.fsmonitor "${touch("nested-fsmonitor")}; false"`,
    `for f in .outpost/workspaces/*/.git; do [ -f "$f" ] && printf 'gitdir: %s\\n' "${hostRoot}/evil-repo/.git" > "$f"; done; true`,
    // A planted commondir would redirect the whole repository to a directory of the agent's choosing.
    ...(options.plantCommondir ? [`printf '%s\\n' "${hostRoot}/elsewhere" > "$GD/commondir"`] : []),
    `echo "in-sandbox markers: $(ls ${markers} | tr '\\n' ' ')"`,
  ].join("\n");
}

/** A worktree kept under `.outpost/workspaces`, as a named dispatch leaves one; returns its path. */
export function addKeptWorktree(repository: string): string {
  const kept = join(repository, ".outpost", "workspaces", "kept");
  mkdirSync(join(repository, ".outpost"), { recursive: true });
  writeFileSync(join(repository, ".outpost", ".gitignore"), "*\n");
  spawnSync("git", ["worktree", "add", "-q", "-b", "kept", kept], { cwd: repository });
  return kept;
}

/** Everything a user commonly runs afterwards, with plain git (their own config, no hardening). */
export function userGitCommands(repository: string): void {
  const run = (...args: string[]) =>
    spawnSync("git", ["-c", "user.name=User", "-c", "user.email=user@example.invalid", ...args], { cwd: repository, encoding: "utf8" });
  const kept = join(repository, ".outpost", "workspaces", "kept");
  if (existsSync(kept)) spawnSync("git", ["status"], { cwd: kept });
  writeFileSync(join(repository, "README.md"), "changed by the user\n");
  writeFileSync(join(repository, "user.txt"), "user file\n");
  run("status");
  run("diff");
  run("add", "README.md", "user.txt");
  run("commit", "-q", "-m", "user commit");
  run("checkout", "-q", "-b", "user-branch");
  run("checkout", "-q", "-");
  run("merge", "-q", "--no-edit", "user-branch");
  run("branch", "-D", "user-branch");
  run("ls-remote", "ssh://outpost.invalid/repo");
  run("gc", "--auto");
}

/** The host repository's git control files, as text to compare before and after. */
export function gitControlState(repository: string): string {
  const git = join(repository, ".git");
  const kept = join(repository, ".outpost", "workspaces", "kept", ".git");
  const planted = [".git/hooks/planted", ".git/commondir"].filter((path) => existsSync(join(repository, path)));
  return [
    readFileSync(join(git, "config"), "utf8"),
    readdirSync(join(git, "hooks")).sort().join(","),
    `planted: ${planted.join(",")}`,
    existsSync(kept) ? readFileSync(kept, "utf8") : "no kept worktree",
  ].join("\n--\n");
}
