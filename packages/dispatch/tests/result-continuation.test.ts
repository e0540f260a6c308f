import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError, type AgentTurn, type SandboxProvider } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { createSteering, dispatch } from "../src/index.js";
import { echoAgent, scratchRepository } from "./support/scratch-repository.js";

// result.resume() and result.fork() (page 004): each is a dispatch of its own with the result's agent,
// provider and storage, through the public entry, with the kit's script agent on the local provider.
const scratch = mkdtempSync(join(tmpdir(), "outpost-result-continuation-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function countingProvider(): { provider: SandboxProvider; acquired: () => number } {
  const inner = localProvider({ home: "private" });
  let count = 0;
  return {
    provider: { ...inner, acquire: (context) => (count++, inner.acquire(context)) },
    acquired: () => count,
  };
}

describe("result.resume() and result.fork()", () => {
  it("resume() is the next turn of the same conversation, with the result's provider and storage, and can go on again", async () => {
    const repository = scratchRepository("outpost-resume-");
    const conversationHome = mkdtempSync(join(scratch, "home-"));
    const { provider, acquired } = countingProvider();
    const first = await dispatch({
      agent: scriptAgent({ directory: scratch }),
      brief: "first task",
      repository,
      sandboxProvider: provider,
      conversationHome,
    });
    // The methods are not fields: the result still serializes and spreads as before.
    expect(Object.keys(first)).not.toContain("resume");
    expect(JSON.parse(JSON.stringify(first))).not.toHaveProperty("fork");

    const second = await first.resume("second task");
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.text).toContain('saw 1 earlier prompt(s): ["first task"]');
    const third = await second.resume({ text: "third task" });
    expect(third.text).toContain('saw 2 earlier prompt(s): ["first task","second task"]');
    expect(acquired()).toBe(3);
  }, 60_000);

  it("fork() asks the agent to continue a copy; an agent that cannot fork is refused before anything is allocated", async () => {
    const repository = scratchRepository("outpost-fork-");
    const conversationHome = mkdtempSync(join(scratch, "home-"));
    const base = scriptAgent({ directory: scratch });
    const { forkable: _omitted, ...rest } = base;
    const asked: unknown[] = [];
    const agent = { ...rest, command: (turn: AgentTurn) => (asked.push(turn.resume), base.command(turn)) };
    const first = await dispatch({
      agent,
      brief: "first task",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      conversationHome,
    });
    const forked = await first.fork("a branch of it");
    expect(asked.at(-1)).toEqual({ id: first.conversationId, fork: true });
    expect(forked.text).toContain('saw 1 earlier prompt(s): ["first task"]');

    const { provider, acquired } = countingProvider();
    const refused = await first.fork("again", { agent: base, sandboxProvider: provider }).catch((error: unknown) => error);
    expect(isOutpostError(refused, "configuration")).toBe(true);
    expect(acquired()).toBe(0);
  }, 60_000);

  it("does not reuse the first dispatch's steering", async () => {
    const repository = scratchRepository("outpost-resume-steering-");
    const steering = createSteering();
    const first = await dispatch({
      agent: scriptAgent({ directory: scratch }),
      brief: "first task",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      conversationHome: mkdtempSync(join(scratch, "home-")),
      steering,
    });
    expect(steering.state).toBe("ended");
    const pending = first.resume("second task");
    // Not attached to the continuation: a send is refused as for any steering whose dispatch ended.
    const sent = await steering.send("change course").catch((error: unknown) => error);
    expect(isOutpostError(sent, "steering")).toBe(true);
    await pending;
    steering.close();
  }, 60_000);

  it("refuses with code session when there is no conversation, and as the engine does when it is not stored", async () => {
    const repository = scratchRepository("outpost-resume-uncaptured-");
    const silent = await dispatch({
      agent: echoAgent(),
      brief: "first task",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
    });
    const unstored = await dispatch({
      agent: scriptAgent({ directory: scratch, storage: false }),
      brief: "first task",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
    });
    for (const [next, code] of [
      [() => silent.resume("more"), "session"],
      [() => silent.fork("more"), "session"],
      [() => unstored.resume("more"), "configuration"],
    ] as const) {
      const error = await next().catch((caught: unknown) => caught);
      expect(isOutpostError(error, code)).toBe(true);
    }
  }, 60_000);
});
