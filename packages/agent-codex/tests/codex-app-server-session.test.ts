import { isOutpostError, type AgentLiveSession, type OutpostError } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { codexAgent, codexConfigOverrides } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";

// The session's protocol handling, fed the stdout that codex app-server 0.171.0 wrote to the same requests
// (tests/fixtures/app-server, recorded offline against the scripted model server).
const OPTIONS = { baseUrl: "http://127.0.0.1:18181/v1", apiKey: "secret-codex-key", model: "gpt-5.5", version: "0.171.0" };
const agent = codexAgent(OPTIONS);
const turn = { prompt: "Create hello.txt containing hi.", root: "/work/repo", home: "/home/agent" };
const recorded = (name: string): string[] => fixtureLines("app-server", `codex-0.171.0-${name}.jsonl`);
const requests = (bytes: string | undefined): Record<string, unknown>[] =>
  (bytes ?? "")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const isResponse = (id: number) => (line: string) => (JSON.parse(line) as { id?: unknown; method?: unknown }).id === id;

/** Feeds recorded lines to the session; returns what it wrote back, in order. */
function feed(session: AgentLiveSession, lines: readonly string[]): Record<string, unknown>[] {
  return lines.flatMap((line) => requests(session.reply?.(line)));
}

async function refusal(promise: Promise<void> | undefined): Promise<OutpostError> {
  const error = await promise!.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isOutpostError(error)) throw new Error(`expected an OutpostError, got ${String(error)}`);
  return error;
}

describe("CodexAppServerSession on recorded app-server output", () => {
  it("runs codex app-server with the agent's settings, and opens the turn one answered request after another", () => {
    const session = agent.liveInput!.open(turn);
    expect(session.command).toMatchObject({
      executable: "codex",
      arguments: ["app-server", ...codexConfigOverrides(OPTIONS)],
      directory: "/work/repo",
      variables: { OUTPOST_CODEX_API_KEY: "secret-codex-key" },
    });
    expect(requests(session.command.stdin)).toEqual([
      {
        id: 1,
        method: "initialize",
        params: { clientInfo: { name: "outpost", title: "Outpost", version: "0.171.0" }, capabilities: null },
      },
    ]);
    const lines = recorded("write-file");
    const written = lines.map((line) => requests(session.reply!(line)));
    // After initialize: initialized, then the thread, unattended as `exec --dangerously-bypass-approvals-and-sandbox`.
    expect(written[lines.findIndex(isResponse(1))]).toEqual([
      { method: "initialized" },
      {
        id: 2,
        method: "thread/start",
        params: { cwd: "/work/repo", approvalPolicy: "never", sandbox: "danger-full-access", model: "gpt-5.5" },
      },
    ]);
    // After the thread: the prompt, on the thread the server named.
    expect(written[lines.findIndex(isResponse(2))]).toEqual([
      {
        id: 3,
        method: "turn/start",
        params: {
          threadId: "01a24961-d127-7493-af49-c414b5aa2d5d",
          input: [{ type: "text", text: "Create hello.txt containing hi.", text_elements: [] }],
        },
      },
    ]);
    // Notifications are not answered.
    expect(written.flat()).toHaveLength(3);
  });

  it("continues a thread with thread/resume, forks it with thread/fork (without its history in the answer)", () => {
    const ID = "01a24961-9dd7-71c0-abfa-e16fbb8f02bf";
    for (const [fork, method] of [
      [false, "thread/resume"],
      [true, "thread/fork"],
    ] as const) {
      const session = agent.liveInput!.open({ ...turn, model: "other", resume: { id: ID, fork } });
      const written = feed(session, recorded("resumed").filter(isResponse(1)));
      expect(written[1]).toEqual({
        id: 2,
        method,
        params: {
          threadId: ID,
          cwd: "/work/repo",
          approvalPolicy: "never",
          sandbox: "danger-full-access",
          model: "other",
          excludeTurns: true,
        },
      });
    }
  });

  it("holds an instruction until the turn's id is known, then sends turn/steer; the server's acceptance resolves it", async () => {
    const session = agent.liveInput!.open(turn);
    const lines = recorded("steered");
    const opening = lines.findIndex(isResponse(3));
    feed(session, lines.slice(0, opening));
    const message = session.message("STEERING-7: write bonjour instead");
    expect(message.write).toBe("");
    expect(feed(session, [lines[opening]!])).toEqual([
      {
        id: 10,
        method: "turn/steer",
        params: {
          threadId: "01a24961-9dd7-71c0-abfa-e16fbb8f02bf",
          expectedTurnId: "01a24961-9e1b-73e1-aaa9-f0c8e159a320",
          input: [{ type: "text", text: "STEERING-7: write bonjour instead", text_elements: [] }],
        },
      },
    ]);
    let accepted = false;
    void message.accepted!.then(() => (accepted = true));
    feed(session, lines.slice(opening + 1, lines.findIndex(isResponse(10))));
    await Promise.resolve();
    expect(accepted).toBe(false);
    feed(session, lines.slice(lines.findIndex(isResponse(10))));
    await expect(message.accepted).resolves.toBeUndefined();
    // Once the turn completed, instructions are refused at once: a steer would reach no turn.
    const late = session.message("too late");
    expect(late.write).toBe("");
    const error = await refusal(late.accepted);
    expect(error.code).toBe("steering");
    expect(error.details["reason"]).toBe("the turn had already finished");
  });

  it("a steer the server refuses (no active turn) rejects with code steering and the server's reason", async () => {
    const session = agent.liveInput!.open(turn);
    const lines = recorded("steer-after-turn");
    const refused = lines.findIndex(isResponse(10));
    const completed = lines.findIndex((line) => line.includes('"method":"turn/completed"'));
    // The instruction was written before the session read turn/completed; the server had finished the turn.
    feed(session, lines.slice(0, completed));
    const message = session.message("late");
    expect(requests(message.write)).toEqual([expect.objectContaining({ id: 10, method: "turn/steer" })]);
    const rejection = refusal(message.accepted);
    feed(session, [lines[completed]!, lines[refused]!]);
    const error = await rejection;
    expect(error.code).toBe("steering");
    expect(error.message).toMatch(/^Codex did not take the instruction: codex refused it \(turn\/steer: no active turn to steer\)\.$/);
  });

  it("a turn that could not open refuses the held instructions with the server's reason", async () => {
    const session = agent.liveInput!.open({ ...turn, resume: { id: "01a2495a-0000-7000-8000-000000000000" } });
    const message = session.message("held");
    const rejection = refusal(message.accepted);
    feed(session, recorded("unknown-thread"));
    expect((await rejection).details["reason"]).toBe(
      "codex could not open the turn: no rollout found for thread id 01a2495a-0000-7000-8000-000000000000",
    );
  });

  it("close() refuses instructions the server has not answered; requests of the server are answered with an error", async () => {
    const session = agent.liveInput!.open(turn);
    const lines = recorded("steered");
    feed(session, lines.slice(0, lines.findIndex(isResponse(3)) + 1));
    const message = session.message("unanswered");
    const rejection = refusal(message.accepted);
    const approval = { id: 0, method: "item/commandExecution/requestApproval", params: {} };
    expect(requests(session.reply!(JSON.stringify(approval)))).toEqual([
      {
        id: 0,
        error: { code: -32601, message: "Outpost runs codex unattended and answers no item/commandExecution/requestApproval request." },
      },
    ]);
    session.close!();
    expect((await rejection).details["reason"]).toBe("codex ended before it answered the instruction");
  });

  it("refuses what no Codex turn can do with code configuration, as exec does", () => {
    for (const bad of [
      { ...turn, conversationId: "x" },
      { ...turn, resume: { id: "--help" } },
    ]) {
      let caught: unknown;
      try {
        agent.liveInput!.open(bad);
      } catch (error) {
        caught = error;
      }
      expect(isOutpostError(caught, "configuration")).toBe(true);
    }
  });
});
