import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { isOutpostError, type AgentTurn } from "@outpost/core";
import { scratchRepository, scriptAgent } from "../src/index.js";

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));

describe("dispatch continuation (script agent, local provider)", () => {
  it("continues the captured conversation in a fresh sandbox: the second turn sees the first", async () => {
    const repository = scratchRepository();
    const conversationHome = mkdtempSync(join(tmpdir(), "outpost-conversations-"));
    const agent = scriptAgent({ directory: agentDirectory });
    const first = await dispatch({
      agent,
      brief: "first task",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      conversationHome,
    });
    expect(first.conversation?.id).toBe(first.conversationId);
    expect(first.conversation!.file.startsWith(conversationHome)).toBe(true);
    const second = await dispatch({
      agent,
      brief: "second task",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      conversationHome,
      continuation: { id: first.conversationId! },
    });
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.text).toContain('saw 1 earlier prompt(s): ["first task"]');
    expect(readFileSync(second.conversation!.file, "utf8")).toContain("second task");
  });

  it("a cold continuation that cannot be found fails with code session before allocating anything", async () => {
    const repository = scratchRepository();
    let acquired = false;
    const provider = localProvider({ home: "private" });
    const error = await dispatch({
      agent: scriptAgent({ directory: agentDirectory }),
      brief: "x",
      repository,
      branch: { mode: "integrate" },
      sandboxProvider: {
        ...provider,
        acquire: (context) => {
          acquired = true;
          return provider.acquire(context);
        },
      },
      continuation: { id: "0000-missing" },
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isOutpostError(error, "session")).toBe(true);
    expect(acquired).toBe(false);
    expect(existsSync(join(repository, ".outpost"))).toBe(false);
  });

  it("refuses continuation for an agent that cannot resume, and fork for one that cannot fork", async () => {
    const repository = scratchRepository();
    const agent = scriptAgent({ directory: agentDirectory });
    const notResumable = { ...agent, resumable: false };
    for (const [candidate, continuation] of [
      [notResumable, { id: "abc" }],
      [agent, { id: "abc", fork: true }],
    ] as const) {
      const error = await dispatch({
        agent: candidate,
        brief: "x",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        continuation,
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isOutpostError(error, "configuration")).toBe(true);
    }
  });

  it("an omitted forkable attempts the fork: the agent is asked to continue a copy", async () => {
    const repository = scratchRepository();
    const conversationHome = mkdtempSync(join(tmpdir(), "outpost-conversations-"));
    const base = scriptAgent({ directory: agentDirectory });
    const first = await dispatch({
      agent: base,
      brief: "first task",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      conversationHome,
    });
    const asked: unknown[] = [];
    const { forkable: _omitted, ...rest } = base;
    const agent = {
      ...rest,
      command: (turn: AgentTurn) => {
        asked.push(turn.resume);
        return base.command(turn);
      },
    };
    const second = await dispatch({
      agent,
      brief: "second task",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      conversationHome,
      continuation: { id: first.conversationId!, fork: true },
    });
    expect(asked.at(-1)).toEqual({ id: first.conversationId, fork: true });
    expect(second.text).toContain('saw 1 earlier prompt(s): ["first task"]');
  });

  it("refuses a continuation with code configuration before allocating when the agent has no storage", async () => {
    const repository = scratchRepository();
    let acquired = false;
    const provider = localProvider({ home: "private" });
    const error = await dispatch({
      agent: scriptAgent({ directory: agentDirectory, storage: false }),
      brief: "x",
      repository,
      sandboxProvider: {
        ...provider,
        acquire: (context) => {
          acquired = true;
          return provider.acquire(context);
        },
      },
      continuation: { id: "abc" },
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect((error as Error).message).toContain("no conversation storage");
    expect(acquired).toBe(false);
    expect(existsSync(join(repository, ".outpost"))).toBe(false);
  });
});
