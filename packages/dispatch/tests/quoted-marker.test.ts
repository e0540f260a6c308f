import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentAdapter, AgentEvent } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { dispatch } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// An agent that owes a final event quotes the end marker early, then keeps working well past settleMs and ends
// with its final event. Under requiresFinishedEvent a quoted marker does not match, so it must not be stopped.
const repository = scratchRepository("outpost-quoted-marker-");
const directory = mkdtempSync(join(tmpdir(), "outpost-quoted-marker-agent-"));
afterAll(() => {
  rmSync(repository, { recursive: true, force: true });
  rmSync(directory, { recursive: true, force: true });
});

const SCRIPT = `
const say = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
say({ type: "text", text: "I will print <outpost>done</outpost> when I am done." });
setTimeout(() => {
  say({ type: "text", text: "still working after the quote" });
  say({ type: "result", text: "finished for real <outpost>done</outpost>" });
}, 1500);
`;

function quotingAgent(): AgentAdapter {
  const script = join(directory, "quoting-agent.mjs");
  writeFileSync(script, SCRIPT);
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "quoting-agent",
    executable: process.execPath,
    requiresFinishedEvent: true,
    usage: "events",
    command: () => ({ executable: process.execPath, arguments: [script], variables: {} }),
    createDecoder: () => ({
      decode: (line: string): AgentEvent[] => {
        const value = JSON.parse(line) as { type: string; text: string };
        return [value.type === "result" ? { type: "finished", text: value.text } : { type: "text", text: value.text }];
      },
    }),
  };
}

describe("a quoted end marker under requiresFinishedEvent", () => {
  it("does not arm the settle timer: the agent runs to its final event, and the turn is not a settled one", async () => {
    const events: string[] = [];
    const result = await dispatch({
      agent: quotingAgent(),
      brief: "Say when you are done.",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      settleMs: 50,
      logging: false,
      observe: (observation) => {
        if (observation.event.type === "text") events.push(observation.event.text);
      },
    });
    expect(events).toContain("still working after the quote");
    expect(result.turns[0]?.settled).toBe(false);
    expect(result.completed).toBe(true);
    expect(result.text).toBe("finished for real <outpost>done</outpost>");
  });
});
