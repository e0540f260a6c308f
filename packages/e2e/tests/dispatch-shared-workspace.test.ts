import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch, openWorkspace, type Workspace } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { gitIn, scratchRepository } from "../src/index.js";
import { hostScriptAgent, outpostFailure } from "./support/workspace-fixture.js";

const agentWith = hostScriptAgent();
const failure = outpostFailure;
const provider = localProvider({ home: "private" });

describe("dispatch into a workspace from openWorkspace()", () => {
  it("integrate: two sequential dispatches see each other's commits; dispatch close leaves it open; its own close removes it", async () => {
    const repository = scratchRepository();
    const workspace = await openWorkspace({ repository, branch: { mode: "integrate" }, label: "shared" });
    expect(workspace.mode).toBe("integrate");
    expect(workspace.directory).not.toBe(repository);
    const first = await dispatch({ agent: agentWith({ FILE: "one.txt" }), brief: "x", sandboxProvider: provider, workspace });
    expect(first.commits).toHaveLength(1);
    expect(first.workspaceKept).toBe(true);
    expect(existsSync(workspace.directory)).toBe(true);
    expect(gitIn(repository, "show", "main:one.txt")).toContain("script agent");
    // The second agent finds the first one's file and commit in the same worktree.
    const seen: string[] = [];
    const second = await dispatch({
      observe: ({ event }) => {
        if (event.type === "text") seen.push(event.text);
      },
      agent: agentWith({ SHELL: "test -e one.txt && git log --format=%s -1", FILE: "two.txt" }),
      brief: "x",
      sandboxProvider: provider,
      workspace,
    });
    expect(seen[0]).toBe("script agent: one.txt\n");
    expect(second.commits).toHaveLength(1);
    expect(second.directory).toBe(workspace.directory);
    expect(gitIn(repository, "show", "main:two.txt")).toContain("script agent");
    expect(await workspace.close()).toEqual({ kept: false });
    expect(workspace.closed).toBe(true);
    expect(existsSync(workspace.directory)).toBe(false);
    // Merged into main, the work branch went with the worktree.
    expect(gitIn(repository, "branch", "--list", workspace.branch!)).toBe("");
    // A second close resolves; a closed workspace is refused.
    await workspace.close();
    const closed = await failure(dispatch({ agent: agentWith({}), brief: "x", sandboxProvider: provider, workspace }));
    expect(closed.code).toBe("configuration");
  });

  it("named: hooks of the workspace run in each dispatch unless the dispatch gives its own; close keeps the branch", async () => {
    const repository = scratchRepository();
    const log = join(mkdtempSync(join(tmpdir(), "outpost-hooks-")), "log");
    const workspace = await openWorkspace({
      repository,
      branch: { mode: "named", name: "feature" },
      hooks: {
        workspaceReady: [`echo workspaceReady >> ${log}`],
        hostReady: [`echo workspace-host >> ${log}`],
        sandboxReady: [`echo workspace-sandbox >> ${log}`],
      },
    });
    await dispatch({ agent: agentWith({ FILE: "a.txt" }), brief: "x", sandboxProvider: provider, workspace });
    await dispatch({
      agent: agentWith({ FILE: "b.txt" }),
      brief: "x",
      sandboxProvider: provider,
      workspace,
      hooks: { workspaceReady: [`echo never >> ${log}`], hostReady: [`echo dispatch-host >> ${log}`] },
    });
    expect(readFileSync(log, "utf8").trim().split("\n").sort()).toEqual(
      ["workspaceReady", "workspace-host", "workspace-sandbox", "dispatch-host", "workspace-sandbox"].sort(),
    );
    expect(gitIn(repository, "log", "--format=%s", "feature").split("\n").slice(0, 2)).toEqual([
      "script agent: b.txt",
      "script agent: a.txt",
    ]);
    expect(await workspace.close()).toEqual({ kept: false });
    expect(gitIn(repository, "rev-parse", "--verify", "--quiet", "feature")).not.toBe("");
  });

  it("refuses repository, branch, copies, storageQuota, a foreign object and a workspace held by another dispatch (configuration)", async () => {
    const repository = scratchRepository();
    const workspace = await openWorkspace({ repository, branch: { mode: "integrate" } });
    const worktrees = () => readdirSync(join(repository, ".outpost", "workspaces")).sort();
    const before = worktrees();
    const clashes: Array<Record<string, unknown>> = [
      { repository },
      { branch: { mode: "integrate" } },
      { copies: [".env"] },
      { storageQuota: { maxBytes: 1 << 30 } },
    ];
    for (const clash of clashes) {
      const error = await failure(dispatch({ agent: agentWith({}), brief: "x", sandboxProvider: provider, workspace, ...clash }));
      expect(error.code, JSON.stringify(clash)).toBe("configuration");
      expect(error.message).toContain(Object.keys(clash)[0]!);
    }
    const forged: Workspace = { ...workspace };
    expect((await failure(dispatch({ agent: agentWith({}), brief: "x", sandboxProvider: provider, workspace: forged }))).code).toBe(
      "configuration",
    );
    // While one dispatch holds the workspace, another is refused, and so is closing it.
    const gate = mkdtempSync(join(tmpdir(), "outpost-gate-"));
    const running = dispatch({
      agent: agentWith({ SHELL: `touch ${gate}/started; while [ ! -e ${gate}/go ]; do sleep 0.1; done`, FILE: "slow.txt" }),
      brief: "x",
      sandboxProvider: provider,
      workspace,
    });
    running.catch(() => undefined);
    while (!existsSync(join(gate, "started"))) await new Promise((resolve) => setTimeout(resolve, 50));
    const busy = await failure(dispatch({ agent: agentWith({}), brief: "x", sandboxProvider: provider, workspace }));
    expect(busy.code).toBe("configuration");
    expect((await failure(workspace.close())).code).toBe("configuration");
    writeFileSync(join(gate, "go"), "");
    expect((await running).commits).toHaveLength(1);
    expect(worktrees()).toEqual(before);
    await workspace.close();
  });

  it("a remote provider refuses a current-mode workspace before allocation", async () => {
    const repository = scratchRepository();
    writeFileSync(join(repository, "untouched.txt"), "host\n");
    const workspace = await openWorkspace({ repository });
    expect(workspace.directory).toBe(repository);
    const remote = { ...provider, name: "remote-double", placement: "remote" as const };
    const error = await failure(dispatch({ agent: agentWith({}), brief: "x", sandboxProvider: remote, workspace }));
    expect(error.code).toBe("configuration");
    expect(existsSync(join(repository, ".outpost"))).toBe(false);
    expect(await workspace.close()).toEqual({ kept: false });
  });
});
