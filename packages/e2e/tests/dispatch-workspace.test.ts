import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch, type BranchPolicy, type DispatchRecovery } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { OutpostError, type SandboxProvider } from "@outpost/core";
import { fsTransport } from "@outpost/transport-fs";
import { gitIn, scratchRepository } from "../src/index.js";
import { hostScriptAgent, outpostFailure } from "./support/workspace-fixture.js";

const agentWith = hostScriptAgent();
const failure = outpostFailure;

describe("dispatch copies", () => {
  it("refuses absolute, .., .git and copies without a new worktree, before allocating anything", async () => {
    const repository = scratchRepository();
    const provider = localProvider({ home: "private" });
    const cases: Array<{ copies: string[]; branch?: { mode: "integrate" } | { mode: "current" } }> = [
      { copies: ["/etc/passwd"], branch: { mode: "integrate" } },
      { copies: ["../outside"], branch: { mode: "integrate" } },
      { copies: ["a/../../outside"], branch: { mode: "integrate" } },
      { copies: [".git/config"], branch: { mode: "integrate" } },
      { copies: ["sub/.git"], branch: { mode: "integrate" } },
      { copies: [""], branch: { mode: "integrate" } },
      { copies: [".env"], branch: { mode: "current" } },
    ];
    for (const options of cases) {
      const error = await failure(dispatch({ agent: agentWith({}), brief: "work", repository, sandboxProvider: provider, ...options }));
      expect(error.code, JSON.stringify(options)).toBe("configuration");
    }
    expect(existsSync(join(repository, ".outpost"))).toBe(false);
  });

  it("copies untracked files into the new worktree (absent entries skipped) and keeps that worktree", async () => {
    const repository = scratchRepository();
    writeFileSync(join(repository, ".env"), "SECRET=local\n");
    mkdirSync(join(repository, "config"));
    writeFileSync(join(repository, "config", "local.json"), "{}\n");
    const seen = join(mkdtempSync(join(tmpdir(), "outpost-seen-")), "env");
    const result = await dispatch({
      agent: agentWith({ FILE: "a.txt" }),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      copies: [".env", "config", "missing.txt"],
      hooks: { workspaceReady: [`cp .env '${seen}'`] },
    });
    expect(readFileSync(seen, "utf8")).toBe("SECRET=local\n");
    expect(result.workspaceKept).toBe(true);
    expect(readFileSync(join(result.directory, "config", "local.json"), "utf8")).toBe("{}\n");
    expect(gitIn(repository, "rev-parse", "main")).toBe(result.commits[0]);
  });

  it("refuses a copied directory holding a link out of the repository; links inside it are fine", async () => {
    const repository = scratchRepository();
    mkdirSync(join(repository, "config"));
    writeFileSync(join(repository, "config", "real.json"), "{}\n");
    symlinkSync("real.json", join(repository, "config", "alias.json"));
    const kept = await dispatch({
      agent: agentWith({}),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      copies: ["config"],
    });
    expect(readFileSync(join(kept.directory, "config", "alias.json"), "utf8")).toBe("{}\n");
    symlinkSync("../../../../etc/hostname", join(repository, "config", "escape"));
    const error = await failure(
      dispatch({
        agent: agentWith({}),
        brief: "work",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
        copies: ["config"],
      }),
    );
    expect(error.code).toBe("workspace");
    expect(error.message).toContain("escape");
  });

  it("refuses a copy that resolves outside the repository through a link", async () => {
    const repository = scratchRepository();
    const outside = mkdtempSync(join(tmpdir(), "outpost-outside-"));
    writeFileSync(join(outside, "secret"), "nope\n");
    symlinkSync(join(outside, "secret"), join(repository, "leak"));
    const error = await failure(
      dispatch({
        agent: agentWith({}),
        brief: "work",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
        copies: ["leak"],
      }),
    );
    expect(error.code).toBe("workspace");
    // Refused before the agent ran: the worktree and branch it opened are gone, nothing to recover.
    expect(error.details.recovery).toBeUndefined();
    expect(gitIn(repository, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(gitIn(repository, "for-each-ref", "--format=%(refname:short)", "refs/heads")).toBe("main");
  });
});

describe("dispatch hooks", () => {
  it("runs workspaceReady, then hostReady in order and sandboxReady together", async () => {
    const repository = scratchRepository();
    const log = join(mkdtempSync(join(tmpdir(), "outpost-hooks-")), "log");
    const result = await dispatch({
      agent: agentWith({ FILE: "h.txt" }),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      hooks: {
        workspaceReady: [`echo workspace >> '${log}'`],
        hostReady: [`sleep 0.2; echo host-1 >> '${log}'`, `echo host-2 >> '${log}'`],
        sandboxReady: [{ executable: "sh", arguments: ["-c", `echo "sandbox $HOME" >> '${log}'`] }],
      },
    });
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines[0]).toBe("workspace");
    expect(lines.indexOf("host-1")).toBeLessThan(lines.indexOf("host-2"));
    // sandboxReady runs in the sandbox (its private home), in parallel with the slow host hook.
    expect(lines.findIndex((line) => line.startsWith("sandbox "))).toBeLessThan(lines.indexOf("host-1"));
    expect(lines.find((line) => line.startsWith("sandbox "))).not.toBe(`sandbox ${process.env.HOME}`);
    expect(result.completed).toBe(true);
  });

  it("a hook exiting non-zero fails with code process; a hook past its deadline with code timeout", async () => {
    const repository = scratchRepository();
    for (const [hooks, code] of [
      [{ hostReady: ["echo broken >&2; exit 3"] }, "process"],
      [{ sandboxReady: ["exit 4"] }, "process"],
      [{ workspaceReady: [{ executable: "sleep", arguments: ["5"], deadlineMs: 200 }] }, "timeout"],
    ] as const) {
      const error = await failure(
        dispatch({
          agent: agentWith({}),
          brief: "work",
          repository,
          sandboxProvider: localProvider({ home: "private" }),
          branch: { mode: "integrate" },
          hooks,
        }),
      );
      expect(error.code, JSON.stringify(hooks)).toBe(code);
      // A failed workspaceReady hook comes before the agent: its worktree is removed; later ones keep it.
      if ("workspaceReady" in hooks) expect(error.details.recovery).toBeUndefined();
      else expect(existsSync((error.details.recovery as DispatchRecovery).directory)).toBe(true);
    }
  });
});

describe("dispatch storage quota", () => {
  it("refuses with code configuration when usage plus reservations would pass maxBytes", async () => {
    const repository = scratchRepository();
    mkdirSync(join(repository, ".outpost", "storage"), { recursive: true });
    writeFileSync(join(repository, ".outpost", "storage", "big"), Buffer.alloc(50_000));
    const error = await failure(
      dispatch({
        agent: agentWith({}),
        brief: "work",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
        storageQuota: { reserveBytes: 60_000, maxBytes: 100_000 },
      }),
    );
    expect(error.code).toBe("configuration");
    expect(error.details).toMatchObject({ used: 50_000 + 2, reserved: 0, requested: 60_000 });
    expect(existsSync(join(repository, ".outpost", "workspaces"))).toBe(false);
  });

  it("counts active reservations of concurrent dispatches and releases them at close", async () => {
    const repository = scratchRepository();
    const quota = { reserveBytes: 600_000, maxBytes: 1_000_000 };
    const slow = dispatch({
      agent: agentWith({ DELAY_MS: "800" }),
      brief: "slow",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      storageQuota: quota,
    });
    await new Promise((done) => setTimeout(done, 300));
    const refused = await failure(
      dispatch({
        agent: agentWith({}),
        brief: "second",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
        storageQuota: quota,
      }),
    );
    expect(refused.code).toBe("configuration");
    expect(refused.details.reserved).toBe(600_000);
    await slow;
    expect(readdirSync(join(repository, ".outpost", "reservations"))).toEqual([]);
    const later = await dispatch({
      agent: agentWith({}),
      brief: "third",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      storageQuota: quota,
    });
    expect(later.completed).toBe(true);
  });
});

describe("dispatch activity record", () => {
  it("is written through the activity transport while the sandbox lives, and removed after a clean close", async () => {
    const repository = scratchRepository();
    const transport = fsTransport({ directory: mkdtempSync(join(tmpdir(), "outpost-activity-")) });
    const keys = async () => {
      const found: string[] = [];
      for await (const entry of transport.list("activity/")) found.push(entry.key);
      return found;
    };
    let during: Promise<string[]> | undefined;
    let record: Promise<unknown> | undefined;
    const result = await dispatch({
      agent: agentWith({ DELAY_MS: "300" }),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      activityTransport: transport,
      label: "watched",
      observe: (observation) => {
        if (observation.event.type !== "conversation") return;
        during = keys();
        record = transport
          .read(`activity/${observation.dispatchId}.json`)
          .then((object) => JSON.parse(new TextDecoder().decode(object!.bytes)));
      },
    });
    expect(await during).toEqual([`activity/${result.dispatchId}.json`]);
    expect(await record).toMatchObject({ state: "running", label: "watched", agent: "script-agent", provider: "local", pid: process.pid });
    expect(await keys()).toEqual([]);
  });

  it("is removed after a failed turn whose sandbox was released cleanly (default local storage and a transport)", async () => {
    const repository = scratchRepository();
    const transport = fsTransport({ directory: mkdtempSync(join(tmpdir(), "outpost-activity-")) });
    for (const activityTransport of [undefined, transport]) {
      const error = await failure(
        dispatch({
          agent: agentWith({ EXIT: "2" }),
          brief: "work",
          repository,
          sandboxProvider: localProvider({ home: "private" }),
          activityTransport,
        }),
      );
      const recovery = error.details.recovery as DispatchRecovery;
      expect(recovery.phase).toBe("turns");
      expect(existsSync(join(repository, ".outpost", "storage", "activity", `${recovery.dispatchId}.json`))).toBe(false);
      expect(await transport.read(`activity/${recovery.dispatchId}.json`)).toBeUndefined();
    }
    expect(gitIn(repository, "status", "--porcelain")).toBe("");
  });

  it("is kept with the failed phase when cleanup fails: a release that throws, after a failed or a successful turn", async () => {
    const repository = scratchRepository();
    const provider = localProvider({ home: "private" });
    // A provider whose release ends the sandbox but then reports a failure.
    const failingRelease: SandboxProvider = {
      ...provider,
      acquire: async (context) => {
        const lease = await provider.acquire(context);
        const release = async (): Promise<void> => {
          await lease.release();
          throw new OutpostError("provider", "release failed on purpose");
        };
        return new Proxy(lease, {
          get: (target, property) => {
            if (property === "release") return release;
            const value: unknown = Reflect.get(target, property, target);
            return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
          },
        });
      },
    };
    for (const [behaviour, phase, code] of [
      [{ EXIT: "2" }, "turns", "process"],
      [{}, "syncBack", "provider"],
    ] as const) {
      const error = await failure(dispatch({ agent: agentWith(behaviour), brief: "work", repository, sandboxProvider: failingRelease }));
      const recovery = error.details.recovery as DispatchRecovery;
      const record = JSON.parse(readFileSync(join(repository, ".outpost", "storage", "activity", `${recovery.dispatchId}.json`), "utf8"));
      expect(record).toMatchObject({ state: "failed", phase, agent: "script-agent", provider: "local", error: { code } });
    }
  });
});

describe("dispatch brief files", () => {
  it("expands variables and $(command) output, reports token estimates, never re-expands values", async () => {
    const repository = scratchRepository();
    writeFileSync(join(repository, "brief.md"), 'Task for {{who}}: $(echo from-a-command) \\$(not run) value=$(printf %s "$who")\n');
    const diagnostics: string[] = [];
    let prompt = "";
    await dispatch({
      agent: agentWith({}),
      brief: { file: "brief.md", variables: { who: "$(touch pwned)" } },
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      diagnostic: (message) => diagnostics.push(message),
      observe: (observation) => {
        if (observation.event.type === "text") prompt = observation.event.text;
      },
    });
    expect(prompt).toBe("pass 1 saw 0 earlier prompt(s) <outpost>done</outpost>");
    expect(existsSync(join(repository, "pwned"))).toBe(false);
    expect(diagnostics.some((message) => message.includes("$(echo from-a-command)") && message.includes("tokens"))).toBe(true);
  });

  it("a slow expansion fails with code timeout, a failing one with code prompt, an unknown variable with configuration", async () => {
    const repository = scratchRepository();
    writeFileSync(join(repository, "slow.md"), "$(sleep 5)");
    writeFileSync(join(repository, "failing.md"), "$(exit 9)");
    writeFileSync(join(repository, "unknown.md"), "{{nope}}");
    const provider = localProvider({ home: "private" });
    expect(
      (
        await failure(
          dispatch({ agent: agentWith({}), brief: { file: "slow.md" }, expansionMs: 200, repository, sandboxProvider: provider }),
        )
      ).code,
    ).toBe("timeout");
    expect(
      (await failure(dispatch({ agent: agentWith({}), brief: { file: "failing.md" }, repository, sandboxProvider: provider }))).code,
    ).toBe("prompt");
    expect(
      (await failure(dispatch({ agent: agentWith({}), brief: { file: "unknown.md" }, repository, sandboxProvider: provider }))).code,
    ).toBe("configuration");
    expect(
      (await failure(dispatch({ agent: agentWith({}), brief: "x".repeat(2 * 1024 * 1024), repository, sandboxProvider: provider }))).code,
    ).toBe("limit");
  });

  it("an unusable repository path is code workspace", async () => {
    const error = await failure(
      dispatch({
        agent: agentWith({}),
        brief: "work",
        repository: join(tmpdir(), "does-not-exist-outpost"),
        sandboxProvider: localProvider({ home: "private" }),
      }),
    );
    expect(error.code).toBe("workspace");
    const notGit = mkdtempSync(join(tmpdir(), "outpost-plain-"));
    expect(
      (
        await failure(
          dispatch({ agent: agentWith({}), brief: "work", repository: notGit, sandboxProvider: localProvider({ home: "private" }) }),
        )
      ).code,
    ).toBe("workspace");
  });
});

describe("dispatch hostile input", () => {
  it("refuses an agent home file that escapes the lease home (code workspace), keeping the worktree", async () => {
    const repository = scratchRepository();
    const base = agentWith({});
    const agent = { ...base, homeFiles: () => [{ path: "../../escaped.txt", content: "x" }] };
    const error = await failure(
      dispatch({ agent, brief: "work", repository, sandboxProvider: localProvider({ home: "private" }), branch: { mode: "integrate" } }),
    );
    expect(error.code).toBe("workspace");
    expect(existsSync((error.details.recovery as DispatchRecovery).directory)).toBe(true);
  });

  /** How a dispatch on `branch` fails. */
  const branchFailure = (repository: string, branch: BranchPolicy) =>
    failure(dispatch({ agent: agentWith({}), brief: "work", repository, sandboxProvider: localProvider({ home: "private" }), branch }));

  it("refuses branch names git would not accept, before creating anything", async () => {
    const repository = scratchRepository();
    for (const name of ["--upload-pack=evil", "a..b", "bad name", "x.lock", "../escape"]) {
      expect((await branchFailure(repository, { mode: "named", name })).code, name).toBe("configuration");
    }
    expect(existsSync(join(repository, ".outpost", "workspaces"))).toBe(false);
  });

  it("integrate with a given name refuses an invalid name and an existing branch, creating no worktree", async () => {
    const repository = scratchRepository();
    gitIn(repository, "branch", "taken");
    for (const name of ["a..b", "x.lock", "taken"]) {
      const error = await branchFailure(repository, { mode: "integrate", name });
      expect(error.code, name).toBe("configuration");
      expect(error.message, name).toMatch(name === "taken" ? /already exists/ : /not a valid branch name/);
    }
    const workspaces = join(repository, ".outpost", "workspaces");
    expect(existsSync(workspaces) ? readdirSync(workspaces) : []).toEqual([]);
  });

  it("a conversation id an agent store refuses is code session, before allocation", async () => {
    const repository = scratchRepository();
    const error = await failure(
      dispatch({
        agent: agentWith({}),
        brief: "work",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        continuation: { id: "../../etc/passwd" },
      }),
    );
    expect(error.code).toBe("session");
    expect(existsSync(join(repository, ".outpost"))).toBe(false);
  });

  it("a checkout without commits is code workspace; integrate on a detached HEAD is code configuration", async () => {
    const empty = mkdtempSync(join(tmpdir(), "outpost-empty-"));
    gitIn(empty, "init", "--quiet");
    for (const branch of [{ mode: "current" }, { mode: "integrate" }] as const) {
      const error = await failure(
        dispatch({ agent: agentWith({}), brief: "work", repository: empty, sandboxProvider: localProvider({ home: "private" }), branch }),
      );
      expect(error.code, branch.mode).toBe("workspace");
      expect(error.message).toContain("Make a first commit");
    }
    const detached = scratchRepository();
    gitIn(detached, "checkout", "--quiet", "--detach");
    const error = await failure(
      dispatch({
        agent: agentWith({}),
        brief: "work",
        repository: detached,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
      }),
    );
    expect(error.code).toBe("configuration");
    expect(error.message).toContain("detached HEAD");
  });

  it("the integrate lock survives a crashed holder: a stale lock file does not block", async () => {
    const repository = scratchRepository();
    mkdirSync(join(repository, ".outpost", "locks"), { recursive: true });
    writeFileSync(join(repository, ".outpost", "locks", "integrate.lock"), "999999\n");
    const result = await dispatch({
      agent: agentWith({ FILE: "after-crash.txt" }),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
    });
    expect(gitIn(repository, "rev-parse", "main")).toBe(result.commits[0]);
  });
});
