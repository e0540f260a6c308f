import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError, type AgentTurn, type CustomAgent } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { createFallbackAgent, createSandbox, dispatch } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// A custom agent (page 003's `custom` kind) written as the contract shows it: request() builds each turn's
// process, createDecoder() reads it, and the fork hook copies a conversation in the sandbox. It runs, continues
// and forks end to end with the engine's own events, capture and usage; the script agent is the real process.
const scratch = mkdtempSync(join(tmpdir(), "outpost-custom-agent-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Built {
  readonly agent: CustomAgent;
  /** The resume of every turn request() was asked for. */
  readonly asked: AgentTurn["resume"][];
  /** The conversations the fork hook copied: [original, copy]. */
  readonly forked: [string, string][];
}

function customScriptAgent(withHook: boolean, behaviour: Record<string, string> = {}): Built {
  const process = scriptAgent({ directory: scratch, behaviour });
  const asked: AgentTurn["resume"][] = [];
  const forked: [string, string][] = [];
  const agent: CustomAgent = {
    kind: "custom",
    name: "my-agent",
    requiresFinishedEvent: true,
    usage: "events",
    storage: process.storage!,
    request: (turn) => {
      asked.push(turn.resume);
      return process.command(turn);
    },
    createDecoder: (context) => process.createDecoder(context),
    ...(withHook
      ? {
          // The script agent keeps a conversation as $HOME/.script-agent/sessions/<id>.jsonl: the copy is a new file.
          fork: async (id, { sandbox, signal }) => {
            const copy = randomUUID();
            const sessions = `${sandbox.home}/.script-agent/sessions`;
            const copied = await sandbox.invoke({
              executable: "cp",
              arguments: [`${sessions}/${id}.jsonl`, `${sessions}/${copy}.jsonl`],
              ...(signal ? { signal } : {}),
            });
            if (copied.status !== 0) throw new Error(`cp failed: ${copied.stderr}`);
            forked.push([id, copy]);
            return copy;
          },
        }
      : {}),
  };
  return { agent, asked, forked };
}

const options = () => ({
  repository: scratchRepository("outpost-custom-agent-"),
  sandboxProvider: localProvider({ home: "private" }),
  conversationHome: mkdtempSync(join(scratch, "home-")),
});

describe("a custom agent (request() and the fork hook)", () => {
  it("runs, continues and forks through its hook: the copy goes on, the original stays as it was", async () => {
    const { agent, asked, forked } = customScriptAgent(true, { FILE: "custom.txt" });
    const events: string[] = [];
    const first = await dispatch({ ...options(), agent, brief: "Write custom.txt.", observe: ({ event }) => events.push(event.type) });
    expect(first.completed).toBe(true);
    expect(first.commits).toHaveLength(1);
    expect(first.conversation?.format).toBeDefined();
    // The CLI agents' events and usage: the decoder's events reached the observer, the finished event's usage counts.
    expect(events).toEqual(expect.arrayContaining(["conversation", "tool-call", "tool-result", "finished"]));
    expect(first.usage.inputTokens).toBeGreaterThan(0);

    const resumed = await first.resume("And then?", { agent: customScriptAgent(true).agent });
    expect(resumed.conversationId).toBe(first.conversationId);
    expect(resumed.text).toContain('saw 1 earlier prompt(s): ["Write custom.txt."]');
    const original = readFileSync(resumed.conversation!.file, "utf8");

    const forking = customScriptAgent(true);
    const branch = await first.fork("Branch off.", { agent: forking.agent });
    expect(forking.forked).toEqual([[first.conversationId, branch.conversationId]]);
    // request() continued the copy: it never saw fork: true.
    expect(forking.asked).toEqual([{ id: branch.conversationId }]);
    expect(branch.text).toContain('saw 2 earlier prompt(s): ["Write custom.txt.","And then?"]');
    expect(branch.conversation!.file).not.toBe(first.conversation!.file);
    expect(readFileSync(first.conversation!.file, "utf8")).toBe(original);
    expect(asked).toEqual([undefined]);
    expect(forked).toEqual([]);
  }, 120_000);

  it("without a hook, fork is attempted through request() with fork: true", async () => {
    const { agent } = customScriptAgent(false);
    const first = await dispatch({ ...options(), agent, brief: "One." });
    const plain = customScriptAgent(false);
    await first.fork("Two.", { agent: plain.agent });
    expect(plain.asked).toEqual([{ id: first.conversationId, fork: true }]);
  }, 60_000);

  it("runs in a warm sandbox and as a fallback candidate", async () => {
    const { agent, forked } = customScriptAgent(true);
    const sandbox = await createSandbox({ ...options(), branch: { mode: "named", name: "custom" }, agent });
    try {
      const first = await sandbox.dispatch("Hello.");
      const copy = await sandbox.fork(first.conversationId!, "Fork it.");
      expect(forked).toEqual([[first.conversationId, copy.conversationId]]);
      expect(copy.text).toContain('["Hello."]');
    } finally {
      await sandbox.close();
    }
    const chained = await dispatch({
      ...options(),
      agent: createFallbackAgent([customScriptAgent(false).agent], { on: ["quota"] }),
      brief: "Through a chain.",
    });
    expect(chained.completed).toBe(true);
  }, 120_000);

  it("a fork hook that fails, or returns no new id, fails with session; a custom agent without request() is refused", async () => {
    const { agent } = customScriptAgent(false);
    const first = await dispatch({ ...options(), agent, brief: "One." });
    for (const fork of [() => Promise.reject(new Error("no space left")), (id: string) => Promise.resolve(id), () => Promise.resolve("")]) {
      const error = await first.fork("Two.", { agent: { ...customScriptAgent(false).agent, fork } }).catch((caught: unknown) => caught);
      expect(isOutpostError(error, "session")).toBe(true);
    }
    const { request: _request, ...incomplete } = customScriptAgent(false).agent;
    const refused = await dispatch({ ...options(), agent: incomplete as CustomAgent, brief: "x" }).catch((caught: unknown) => caught);
    expect(isOutpostError(refused, "configuration")).toBe(true);
    expect((refused as Error).message).toContain("request(turn)");
  }, 120_000);
});
