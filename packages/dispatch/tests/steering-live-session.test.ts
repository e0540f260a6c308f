import { rmSync } from "node:fs";
import type { AgentAdapter, AgentEvent, AgentLiveSession, AgentTurn } from "@outpost/core";
import { isOutpostError, OutpostError } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { afterAll, describe, expect, it } from "vitest";
import { createSteering, dispatch, type SteeringReceipt } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// The engine's side of a stateful live session (Codex's app-server shape) with a real process speaking a tiny
// protocol: the session answers the process's lines on stdin, an instruction is delivered once the process
// accepted it and refused with its reason otherwise, and stdin ends with the final event so the process exits.
const repository = scratchRepository("outpost-live-session-repo-");
afterAll(() => rmSync(repository, { recursive: true, force: true }));

/** Says ready; once started, names its conversation; answers each steer (refusing those saying "refuse"); finishes after two. */
const PROCESS = `
const out = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
let steers = 0;
out({ ready: true });
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.start) out({ type: "conversation", id: "live-1" });
  if (message.steer === undefined) return;
  steers += 1;
  if (message.steer.includes("refuse")) out({ answer: message.id, error: "no active turn" });
  else {
    out({ answer: message.id });
    out({ type: "text", text: "took " + message.steer });
  }
  if (steers === 2) out({ type: "finished", text: "took every instruction" });
}).on("close", () => process.exit(0));
`;

/** The session of one turn: opens with the process's `ready`, then sends held and later instructions with ids. */
class TinySession implements AgentLiveSession {
  readonly command = { executable: process.execPath, arguments: ["-e", PROCESS], stdin: "", variables: {} };
  private ready = false;
  private next = 1;
  private readonly held: string[] = [];
  private readonly answers = new Map<number, { resolve: () => void; reject: (error: OutpostError) => void }>();

  message(text: string) {
    const accepted = new Promise<void>((resolve, reject) => this.answers.set(this.next, { resolve, reject }));
    const line = `${JSON.stringify({ id: this.next++, steer: text })}\n`;
    if (!this.ready) this.held.push(line);
    return { write: this.ready ? line : "", accepted };
  }

  reply(line: string): string | undefined {
    const value = JSON.parse(line) as { ready?: boolean; answer?: number; error?: string };
    if (value.ready) {
      this.ready = true;
      return [`${JSON.stringify({ start: true })}\n`, ...this.held.splice(0)].join("");
    }
    const answer = value.answer === undefined ? undefined : this.answers.get(value.answer);
    if (value.error !== undefined)
      answer?.reject(new OutpostError("steering", "refused", { details: { reason: `it said: ${value.error}` } }));
    else answer?.resolve();
    return undefined;
  }
}

function liveAgent(sessions: TinySession[]): AgentAdapter {
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "tiny",
    executable: process.execPath,
    command: () => {
      throw new Error("a steered turn runs the live session's command");
    },
    liveInput: {
      open: (_turn: AgentTurn) => {
        const session = new TinySession();
        sessions.push(session);
        return session;
      },
    },
    createDecoder: (context) => ({
      decode: (line): AgentEvent[] => {
        expect(context?.live).toBe(true);
        const value = JSON.parse(line) as { type?: string };
        return typeof value.type === "string" ? [value as AgentEvent] : [{ type: "raw", line }];
      },
    }),
  };
}

describe("steering through a stateful live session", () => {
  it("delivers an instruction once the process accepted it, refuses one it refused with its reason; stdin ends with the turn", async () => {
    const steering = createSteering();
    const sessions: TinySession[] = [];
    // Settled as they arrive: a refusal is an outcome here, not an unhandled rejection.
    const sent: Promise<SteeringReceipt | unknown>[] = [];
    const settled = (promise: Promise<SteeringReceipt>) => promise.catch((error: unknown) => error);
    const events: { readonly type: string }[] = [];
    const result = await dispatch({
      agent: liveAgent(sessions),
      sandboxProvider: localProvider({ home: "private" }),
      brief: "x",
      repository,
      until: [],
      steering,
      observe: (observation) => {
        events.push(observation.event);
        if (observation.event.type === "conversation")
          sent.push(settled(steering.send("please refuse this")), settled(steering.send("use French")));
      },
    });
    const refused = await sent[0];
    expect(isOutpostError(refused, "steering")).toBe(true);
    expect((refused as Error).message).toBe("The steering message was not delivered: it said: no active turn.");
    expect(await sent[1]).toEqual({ delivery: "injected", dispatchId: result.dispatchId, pass: 1 });
    expect(events.filter((event) => event.type === "steer")).toEqual([
      expect.objectContaining({ delivery: "injected", text: "use French" }),
    ]);
    expect(sessions).toHaveLength(1);
    expect(result.turns).toHaveLength(1);
    expect(result.text).toBe("took every instruction");
  }, 60_000);
});
