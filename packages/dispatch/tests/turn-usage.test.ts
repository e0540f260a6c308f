import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapter, AgentEvent, ConversationStore, UsageMode } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { afterAll, describe, expect, it } from "vitest";
import { dispatch } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// Seed 003 `usage` and `transcriptUsage`, through dispatch(): a script agent prints JSON events, one per line.
const scratch = mkdtempSync(join(tmpdir(), "outpost-usage-"));
const repository = scratchRepository("outpost-usage-repo-");
afterAll(() => [scratch, repository].forEach((directory) => rmSync(directory, { recursive: true, force: true })));

function scriptAgent(
  events: readonly AgentEvent[],
  features: { usage?: UsageMode; transcriptUsage?: AgentAdapter["transcriptUsage"] } = {},
  storage?: ConversationStore,
): AgentAdapter {
  const script = events.map((event) => `printf '%s\\n' '${JSON.stringify(event)}'`).join("; ");
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "script",
    executable: "sh",
    command: () => ({ executable: "sh", arguments: ["-c", script], variables: {} }),
    createDecoder: () => ({ decode: (line) => [JSON.parse(line) as AgentEvent] }),
    ...features,
    ...(storage ? { storage } : {}),
  };
}

// A store that captures the conversation as a real host file: what transcriptUsage then reads.
function fileStore(content: string): ConversationStore {
  return {
    specificationVersion: "v1",
    name: "file",
    locate: () => Promise.reject(new Error("unused")),
    capture: async (id) => {
      const file = join(scratch, `${id}.jsonl`);
      writeFileSync(file, content);
      return { id, file, format: "file" };
    },
    restore: () => Promise.resolve(),
  };
}

const finished: AgentEvent = { type: "finished", text: "done" };
const conversation: AgentEvent = { type: "conversation", id: "c-1" };
const run = (agent: AgentAdapter, warnings: string[] = []) =>
  dispatch({
    agent,
    sandboxProvider: localProvider({ home: "private" }),
    brief: "x",
    repository,
    until: [],
    warn: (message) => warnings.push(message),
  });

describe("usage by the agent's declared mode", () => {
  it("events: complete when the stream reports input and output tokens", async () => {
    const result = await run(scriptAgent([{ type: "usage", usage: { inputTokens: 10, outputTokens: 3 } }, finished], { usage: "events" }));
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 3 });
    expect(result.turns[0]!.usage.incomplete).toBeUndefined();
  });

  it("events: a missing counter marks the turn and the dispatch incomplete", async () => {
    const result = await run(scriptAgent([{ type: "usage", usage: { outputTokens: 3 } }, finished], { usage: "events" }));
    expect(result.turns[0]!.usage).toEqual({ outputTokens: 3, incomplete: true });
    expect(result.usage.incomplete).toBe(true);
  });

  it("omitted: what the events reported is counted without that check", async () => {
    const result = await run(scriptAgent([{ type: "usage", usage: { outputTokens: 3 } }, finished]));
    expect(result.usage).toEqual({ outputTokens: 3 });
  });

  it("unavailable: records none, whatever the stream says", async () => {
    const result = await run(
      scriptAgent([{ type: "usage", usage: { inputTokens: 1, outputTokens: 1 } }, finished], { usage: "unavailable" }),
    );
    expect(result.usage).toEqual({});
  });

  it("session: read from the captured transcript, which replaces the events' usage", async () => {
    const agent = scriptAgent(
      [conversation, { type: "usage", usage: { inputTokens: 1, outputTokens: 1 } }, finished],
      { usage: "session", transcriptUsage: (text) => JSON.parse(text) as { inputTokens: number; outputTokens: number } },
      fileStore(JSON.stringify({ inputTokens: 70, outputTokens: 20 })),
    );
    expect((await run(agent)).usage).toEqual({ inputTokens: 70, outputTokens: 20 });
  });

  it("session: no transcript usage leaves the events' counters, marked incomplete", async () => {
    const agent = scriptAgent([conversation, { type: "usage", usage: { inputTokens: 1, outputTokens: 1 } }, finished], {
      usage: "session",
    });
    expect((await run(agent)).usage).toEqual({ inputTokens: 1, outputTokens: 1, incomplete: true });
  });

  it("a throwing transcriptUsage keeps the captured conversation and warns", async () => {
    const warnings: string[] = [];
    const agent = scriptAgent(
      [conversation, { type: "usage", usage: { inputTokens: 5, outputTokens: 2 } }, finished],
      {
        usage: "events",
        transcriptUsage: () => {
          throw new Error("unexpected transcript shape");
        },
      },
      fileStore("{}"),
    );
    const result = await run(agent, warnings);
    expect(result.conversation).toMatchObject({ id: "c-1", format: "file" });
    expect(result.usage).toEqual({ inputTokens: 5, outputTokens: 2 });
    expect(warnings.join("\n")).toContain("Could not read script usage from its captured transcript");
    expect(warnings.join("\n")).toContain("unexpected transcript shape");
  });
});
