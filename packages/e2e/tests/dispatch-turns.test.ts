import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch, dispatchAbortError, dispatchRecovery, type AgentObservation, type DispatchRecovery } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { isOutpostError, type OutpostError } from "@outpost/core";
import { gitIn, scratchRepository, scriptAgent } from "../src/index.js";

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
const agentWith = (behaviour: Record<string, string>) => scriptAgent({ directory: agentDirectory, behaviour });

async function failure(promise: Promise<unknown>): Promise<OutpostError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isOutpostError(error)) throw new Error(`expected an OutpostError, got ${String(error)}`);
  return error;
}

/** True once `pid` has exited: no such process, or a zombie waiting for a parent that does not reap it. */
async function gone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    try {
      process.kill(pid, 0);
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))) return true;
    } catch {
      return true;
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  return false;
}

describe("dispatch passes and markers", () => {
  it("stops at the first pass whose text contains a marker", async () => {
    const repository = scratchRepository();
    const result = await dispatch({
      agent: agentWith({ MARKER: "2" }),
      brief: "work",
      passes: 4,
      repository,
      sandboxProvider: localProvider({ home: "private" }),
    });
    expect(result.turns.map((turn) => turn.pass)).toEqual([1, 2]);
    expect(result.turns[0]!.marker).toBeUndefined();
    expect(result.turns[1]!.marker).toBe("<outpost>done</outpost>");
    expect(result.completed).toBe(true);
    // Each pass is a new conversation.
    expect(result.turns[0]!.conversationId).not.toBe(result.turns[1]!.conversationId);
    expect(result.turns[1]!.text).toContain("saw 0 earlier prompt(s)");
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
  });

  it("until: [] runs every pass", async () => {
    const repository = scratchRepository();
    const result = await dispatch({
      agent: agentWith({ MARKER: "always" }),
      brief: "work",
      passes: 3,
      until: [],
      repository,
      sandboxProvider: localProvider({ home: "private" }),
    });
    expect(result.turns).toHaveLength(3);
    expect(result.completed).toBe(true);
  });

  it("custom markers; no marker after every pass means not completed", async () => {
    const repository = scratchRepository();
    const result = await dispatch({
      agent: agentWith({ MARKER: "always" }),
      brief: "work",
      passes: 2,
      until: ["ALL-GREEN"],
      repository,
      sandboxProvider: localProvider({ home: "private" }),
    });
    expect(result.turns).toHaveLength(2);
    expect(result.completed).toBe(false);
  });

  it("refuses empty marker strings and bad numbers before allocating anything", async () => {
    const repository = scratchRepository();
    const provider = localProvider({ home: "private" });
    for (const options of [{ until: [""] }, { passes: 0 }, { idleMs: -1 }, { deadlineMs: 1.5 }, { passes: 2, continuation: { id: "x" } }]) {
      const error = await failure(dispatch({ agent: agentWith({}), brief: "work", repository, sandboxProvider: provider, ...options }));
      expect(error.code).toBe("configuration");
    }
    expect(existsSync(join(repository, ".outpost"))).toBe(false);
  });
});

describe("dispatch timers and abort", () => {
  const recoveryOf = (error: OutpostError) => error.details.recovery as DispatchRecovery;

  it("idle: a silent agent is stopped with its whole tree, after repeated warnings; the worktree stays", async () => {
    const repository = scratchRepository();
    const pidFile = join(mkdtempSync(join(tmpdir(), "outpost-pid-")), "child.pid");
    const warnings: string[] = [];
    const error = await failure(
      dispatch({
        agent: agentWith({ HANG: "silent", CHILD_PID_FILE: pidFile }),
        brief: "work",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
        idleMs: 1_000,
        idleWarningMs: 300,
        warn: (message) => warnings.push(message),
      }),
    );
    expect(error.code).toBe("timeout");
    expect(error.details.timer).toBe("idle");
    expect(warnings.filter((message) => message.includes("no output")).length).toBeGreaterThanOrEqual(2);
    expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
    const recovery = recoveryOf(error);
    expect(recovery.phase).toBe("turns");
    expect(existsSync(recovery.directory)).toBe(true);
    expect(gitIn(repository, "branch", "--list", recovery.branch!)).toContain(recovery.branch);
  });

  it("deadline: a busy agent is stopped after deadlineMs with its tree; its commit is in the recovery details", async () => {
    const repository = scratchRepository();
    const pidFile = join(mkdtempSync(join(tmpdir(), "outpost-pid-")), "child.pid");
    const error = await failure(
      dispatch({
        agent: agentWith({ HANG: "busy", FILE: "partial.txt", CHILD_PID_FILE: pidFile }),
        brief: "work",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "named", name: "busy" },
        deadlineMs: 1_200,
        until: ["never-printed"],
      }),
    );
    expect(error.code).toBe("timeout");
    expect(error.details.timer).toBe("deadline");
    expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
    const recovery = recoveryOf(error);
    expect(recovery.commits).toHaveLength(1);
    expect(recovery.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    // The interrupted conversation was captured, so it can be continued.
    expect(recovery.conversation?.id).toBe(recovery.conversationId);
    expect(readFileSync(recovery.conversation!.file, "utf8")).toContain('"role":"user"');
    expect(gitIn(repository, "rev-parse", "busy")).toBe(recovery.commits[0]);
  });

  it("settle: an agent still running settleMs after its marker is stopped and the turn succeeds", async () => {
    const repository = scratchRepository();
    // This agent does not owe a final event, so its text's marker completes the turn.
    const agent = { ...agentWith({ HANG: "after-marker", FILE: "done.txt" }), requiresFinishedEvent: false };
    const result = await dispatch({ agent, brief: "work", repository, sandboxProvider: localProvider({ home: "private" }), settleMs: 300 });
    expect(result.completed).toBe(true);
    expect(result.turns[0]!.settled).toBe(true);
    expect(result.commits).toHaveLength(1);
  });

  it("signal: aborting stops the agent tree and rejects with the signal's reason itself; dispatchAbortError keeps the recovery", async () => {
    const repository = scratchRepository();
    const pidFile = join(mkdtempSync(join(tmpdir(), "outpost-pid-")), "child.pid");
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const running = dispatch({
      agent: agentWith({ HANG: "busy", CHILD_PID_FILE: pidFile }),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      signal: controller.signal,
      until: ["never"],
      observe: (observation) => {
        if (observation.event.type === "text") controller.abort(reason);
      },
    });
    const rejected = await running.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(rejected).toBe(reason);
    const error = dispatchAbortError(rejected)!;
    expect(error.code).toBe("aborted");
    expect(error.message).toContain("user pressed stop");
    expect(await gone(Number(readFileSync(pidFile, "utf8")))).toBe(true);
    expect(existsSync(recoveryOf(error).directory)).toBe(true);
    expect(dispatchRecovery(rejected)).toEqual(recoveryOf(error));
  });

  it("signal: a signal aborted before the dispatch rejects with its reason, even a string, and allocates nothing", async () => {
    const repository = scratchRepository();
    const controller = new AbortController();
    controller.abort("not today");
    const rejected = await dispatch({
      agent: agentWith({}),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      signal: controller.signal,
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(rejected).toBe("not today");
    expect(dispatchAbortError(rejected)).toBeUndefined();
    expect(existsSync(join(repository, ".outpost"))).toBe(false);
  });

  it("a failing agent is code process with its stderr, and recovery details", async () => {
    const repository = scratchRepository();
    const error = await failure(
      dispatch({
        agent: agentWith({ EXIT: "7", FILE: "x.txt" }),
        brief: "work",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
      }),
    );
    expect(error.code).toBe("process");
    expect(error.message).toContain("failing on purpose");
    expect(recoveryOf(error).commits).toHaveLength(1);
  });
});

describe("dispatch observers", () => {
  it("observe sees every event with pass and timestamp; exceptions are collected and change nothing", async () => {
    const repository = scratchRepository();
    const seen: AgentObservation[] = [];
    const result = await dispatch({
      agent: agentWith({ FILE: "observed.txt" }),
      brief: "work",
      label: "observed",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      observe: (observation) => {
        seen.push(observation);
        throw new Error(`observer broke on ${observation.event.type}`);
      },
      warn: () => {
        throw new Error("warn broke");
      },
    });
    expect(result.completed).toBe(true);
    expect(result.commits).toHaveLength(1);
    expect(seen.map((observation) => observation.event.type)).toEqual([
      "conversation",
      "raw",
      "tool-call",
      "tool-result",
      "text",
      "finished",
    ]);
    // The agent's home file was written 0600 inside a 0700 directory; unknown lines are kept as raw events.
    expect(seen[1]!.event).toMatchObject({ type: "raw", value: { type: "settings", mode: "600", directoryMode: "700" } });
    for (const observation of seen) {
      expect(observation.pass).toBe(1);
      expect(observation.label).toBe("observed");
      expect(Number.isNaN(Date.parse(observation.timestamp))).toBe(false);
    }
    expect(result.observerErrors.filter((entry) => entry.source === "observe")).toHaveLength(6);
    expect(result.observerErrors[0]!.message).toBe("observer broke on conversation");
  });
});
