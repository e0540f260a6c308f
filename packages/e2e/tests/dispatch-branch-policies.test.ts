import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { isOutpostError } from "@outpost/core";
import { gitIn, scratchRepository, scriptAgent } from "../src/index.js";

// A scratch HOME proves Outpost never writes the user's global git configuration.
const realHome = process.env.HOME;
const scratchHome = mkdtempSync(join(tmpdir(), "outpost-home-"));
beforeAll(() => {
  process.env.HOME = scratchHome;
});
afterAll(() => {
  expect(existsSync(join(scratchHome, ".gitconfig"))).toBe(false);
  expect(existsSync(join(scratchHome, ".config", "git"))).toBe(false);
  process.env.HOME = realHome;
});

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
const committingAgent = (file: string) => scriptAgent({ directory: agentDirectory, behaviour: { FILE: file } });

describe("dispatch branch policies", () => {
  it("current: the agent commits on the host checkout's branch", async () => {
    const repository = scratchRepository();
    const result = await dispatch({
      agent: committingAgent("current.txt"),
      brief: "write current.txt",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
    });
    expect(result.completed).toBe(true);
    expect(result.branch).toBe("main");
    expect(result.directory).toBe(repository);
    expect(result.commits).toHaveLength(1);
    expect(gitIn(repository, "rev-parse", "HEAD")).toBe(result.commits[0]);
    expect(readFileSync(join(repository, "current.txt"), "utf8")).toContain("script agent");
    expect(result.text).toContain("<outpost>done</outpost>");
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    // No identity anywhere (scratch HOME, none in the repository): the agent's commit gets the fallback one.
    expect(gitIn(repository, "log", "-1", "--format=%an <%ae>")).toBe("Outpost <outpost@localhost.invalid>");
  });

  it("named: a managed worktree on the named branch; the host checkout does not move", async () => {
    const repository = scratchRepository();
    const hostHead = gitIn(repository, "rev-parse", "HEAD");
    const result = await dispatch({
      agent: committingAgent("named.txt"),
      brief: "write named.txt",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "named", name: "feature/named" },
    });
    expect(result.branch).toBe("feature/named");
    expect(result.directory).toBe(join(repository, ".outpost", "workspaces", "feature-named"));
    expect(result.commits).toHaveLength(1);
    expect(gitIn(repository, "rev-parse", "refs/heads/feature/named")).toBe(result.commits[0]);
    expect(gitIn(repository, "rev-parse", "HEAD")).toBe(hostHead);
    expect(gitIn(repository, "symbolic-ref", "--short", "HEAD")).toBe("main");
    expect(existsSync(join(repository, "named.txt"))).toBe(false);
    // Clean worktree: removed at close, the branch stays.
    expect(result.workspaceKept).toBe(false);
    expect(existsSync(result.directory)).toBe(false);
    expect(gitIn(repository, "status", "--porcelain")).toBe("");
  });

  it("named: a second dispatch continues on the existing branch", async () => {
    const repository = scratchRepository();
    const provider = localProvider({ home: "private" });
    const first = await dispatch({
      agent: committingAgent("one.txt"),
      brief: "one",
      repository,
      sandboxProvider: provider,
      branch: { mode: "named", name: "work" },
    });
    const second = await dispatch({
      agent: committingAgent("two.txt"),
      brief: "two",
      repository,
      sandboxProvider: provider,
      branch: { mode: "named", name: "work" },
    });
    expect(gitIn(repository, "rev-list", "--reverse", "main..work").split("\n")).toEqual([...first.commits, ...second.commits]);
  });

  it("named: a managed worktree deleted by hand is pruned and recreated", async () => {
    const repository = scratchRepository();
    const first = await dispatch({
      agent: scriptAgent({ directory: agentDirectory, behaviour: { FILE: "dirty.txt" } }),
      brief: "one",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "named", name: "handmade" },
      hooks: { workspaceReady: ["touch untracked-scratch"] },
    });
    expect(first.workspaceKept).toBe(true);
    rmSync(first.directory, { recursive: true, force: true });
    const second = await dispatch({
      agent: committingAgent("again.txt"),
      brief: "two",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "named", name: "handmade" },
    });
    expect(gitIn(repository, "rev-list", "--reverse", "main..handmade").split("\n")).toEqual([...first.commits, ...second.commits]);
  });

  it("integrate: merges the agent's commits into the host branch without switching the host checkout", async () => {
    const repository = scratchRepository();
    const result = await dispatch({
      agent: committingAgent("integrated.txt"),
      brief: "write integrated.txt",
      label: "Add file",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
    });
    expect(result.branch).toBe("main");
    expect(result.workBranch).toMatch(/^outpost\/add-file-[0-9a-f]{8}$/);
    expect(result.commits).toHaveLength(1);
    // Fast-forward: the host branch now points at the agent's commit, and the host files followed.
    expect(gitIn(repository, "rev-parse", "main")).toBe(result.commits[0]);
    expect(gitIn(repository, "symbolic-ref", "--short", "HEAD")).toBe("main");
    expect(readFileSync(join(repository, "integrated.txt"), "utf8")).toContain("script agent");
    expect(gitIn(repository, "status", "--porcelain")).toBe("");
    expect(existsSync(result.directory)).toBe(false);
    expect(gitIn(repository, "branch", "--list", result.workBranch!)).toBe("");
  });

  it("integrate: a diverged host branch gets a merge commit with both parents", async () => {
    const repository = scratchRepository();
    const agent = scriptAgent({ directory: agentDirectory, behaviour: { FILE: "agent.txt" } });
    // The user commits on the host branch after the worktree exists, while the agent is about to work.
    const userCommits = {
      hostReady: [
        `git -C '${repository}' -c user.name=User -c user.email=user@example.invalid commit --quiet --allow-empty -m 'user work meanwhile'`,
      ],
    };
    const result = await dispatch({
      agent,
      brief: "agent",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      hooks: userCommits,
    });
    const userCommit = gitIn(repository, "rev-parse", "main^1");
    const parents = gitIn(repository, "rev-list", "--parents", "-n", "1", "main").split(" ");
    expect(parents.slice(1)).toEqual([userCommit, result.commits[0]]);
    expect(readFileSync(join(repository, "agent.txt"), "utf8")).toContain("script agent");
    expect(gitIn(repository, "status", "--porcelain")).toBe("");
  });

  it("integrate: a conflict fails with code conflict and keeps worktree, branch and commits recoverable", async () => {
    const repository = scratchRepository();
    const agent = scriptAgent({ directory: agentDirectory, behaviour: { FILE: "README.md", CONTENT: "agent version" } });
    const userEdit = `printf 'user version\\n' > '${repository}/README.md' && git -C '${repository}' -c user.name=User -c user.email=user@example.invalid commit --quiet -am 'user edit'`;
    const running = dispatch({
      agent,
      brief: "edit README",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      hooks: { hostReady: [userEdit] },
    });
    const initial = gitIn(repository, "rev-parse", "HEAD");
    const error = await running.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!isOutpostError(error, "conflict")) throw error;
    const recovery = error.details.recovery as { branch: string; directory: string; commits: string[]; phase: string };
    expect(recovery.phase).toBe("integrate");
    expect(recovery.branch).toMatch(/^outpost\/dispatch-/);
    expect(recovery.commits).toHaveLength(1);
    expect(error.message).toContain(recovery.branch);
    // Nothing lost: the host branch is untouched, the work branch holds the agent's commit, the worktree is there.
    expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("user edit");
    expect(gitIn(repository, "rev-parse", "main^")).toBe(initial);
    expect(gitIn(repository, "rev-parse", recovery.branch)).toBe(recovery.commits[0]);
    expect(readFileSync(join(recovery.directory, "README.md"), "utf8")).toBe("agent version\n");
    expect(readFileSync(join(repository, "README.md"), "utf8")).toBe("user version\n");
  });

  it("integrate: unrelated local changes in the host checkout are kept; changes to the agent's files are a conflict", async () => {
    const repository = scratchRepository();
    writeFileSync(join(repository, "notes.txt"), "user scratch, never committed\n");
    writeFileSync(join(repository, "README.md"), "# scratch\nuser edit in progress\n");
    const kept = await dispatch({
      agent: committingAgent("feature.txt"),
      brief: "feature",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
    });
    expect(gitIn(repository, "rev-parse", "main")).toBe(kept.commits[0]);
    expect(readFileSync(join(repository, "notes.txt"), "utf8")).toBe("user scratch, never committed\n");
    expect(readFileSync(join(repository, "README.md"), "utf8")).toBe("# scratch\nuser edit in progress\n");

    const agent = scriptAgent({ directory: agentDirectory, behaviour: { FILE: "README.md", CONTENT: "agent rewrite" } });
    const error = await dispatch({
      agent,
      brief: "rewrite README",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!isOutpostError(error, "conflict")) throw error;
    // The user's edit and the host branch are untouched; the agent's commit waits on its branch.
    expect(readFileSync(join(repository, "README.md"), "utf8")).toBe("# scratch\nuser edit in progress\n");
    expect(gitIn(repository, "rev-parse", "main")).toBe(kept.commits[0]);
    const recovery = error.details.recovery as { branch: string; commits: string[] };
    expect(gitIn(repository, "rev-parse", recovery.branch)).toBe(recovery.commits[0]);
    expect(gitIn(repository, "fsck", "--strict", "--no-dangling")).toBe("");
  });

  it("integrate: waits for another git command holding the host checkout's index", async () => {
    const repository = scratchRepository();
    const lock = join(repository, ".git", "index.lock");
    // A hostReady hook plays the user's git: it holds index.lock for a moment after the agent starts.
    const holdIndex = `touch '${lock}' && (sleep 1.2; rm -f '${lock}') >/dev/null 2>&1 &`;
    const result = await dispatch({
      agent: committingAgent("while-locked.txt"),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      hooks: { hostReady: [holdIndex] },
    });
    expect(gitIn(repository, "rev-parse", "main")).toBe(result.commits[0]);
    expect(gitIn(repository, "status", "--porcelain")).toBe("");
  });

  it("integrate into a target no checkout has: the ref moves by compare-and-swap, the host checkout stays", async () => {
    const repository = scratchRepository();
    gitIn(repository, "branch", "release");
    const hostHead = gitIn(repository, "rev-parse", "HEAD");
    const result = await dispatch({
      agent: committingAgent("release-note.txt"),
      brief: "note",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate", target: "release", name: "outpost/release-note" },
    });
    expect(result.branch).toBe("release");
    expect(result.workBranch).toBe("outpost/release-note");
    expect(gitIn(repository, "rev-parse", "release")).toBe(result.commits[0]);
    expect(gitIn(repository, "rev-parse", "main")).toBe(hostHead);
    expect(existsSync(join(repository, "release-note.txt"))).toBe(false);
    expect(gitIn(repository, "reflog", "-1", "--format=%gs", "release")).toBe("outpost: integrate outpost/release-note");
  });
});
