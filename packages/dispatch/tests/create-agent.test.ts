import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { createAgent, dispatch } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// createAgent() (page 004) composes a harness, an agent plugin installed beside the engine and found by its
// package.json as the CLI finds it, with a model checked when composed.
const scratch = mkdtempSync(join(tmpdir(), "outpost-create-agent-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("createAgent()", () => {
  it("builds the installed claude plugin's agent with its own conversation store", async () => {
    const agent = await createAgent({ harness: "claude", model: { name: "claude-sonnet-4-5" } });
    expect(agent).toMatchObject({ kind: "cli", name: "claude" });
    expect(agent.storage).toBeDefined();
    const store = (await createAgent({ harness: "codex" })).storage!;
    expect((await createAgent({ harness: "codex", model: "gpt-5", storage: store })).storage).toBe(store);
  });

  it("refuses an unknown harness and a bad model when composed, with code configuration", async () => {
    for (const options of [
      { harness: "nope" },
      { harness: "" },
      { harness: "claude", model: "" },
      { harness: "claude", model: { name: "m", reasoning: "extreme" } },
      { harness: "claude", model: { name: "m", maxOutputTokens: 0 } },
      { harness: "claude", model: { name: "m", temperature: 1 } },
      // The pinned codex has no setting for the answer's length: refused rather than ignored.
      { harness: "codex", model: { name: "m", maxOutputTokens: 1000 } },
    ]) {
      const error = await createAgent(options as never).catch((caught: unknown) => caught);
      expect(isOutpostError(error, "configuration")).toBe(true);
    }
    const unknown = (await createAgent({ harness: "nope" }).catch((caught: unknown) => caught)) as Error;
    expect(unknown.message).toContain("installed:");
    expect(unknown.message).toContain("claude");
  });

  it("with request() or a fork hook, composes a custom agent over the harness; the model's settings reach request()", async () => {
    const seen: unknown[] = [];
    const agent = await createAgent({
      harness: "claude",
      model: { name: "claude-sonnet-4-5", reasoning: "high", maxOutputTokens: 2000 },
      request: (turn, harness) => (seen.push(harness.model), harness.command(turn)),
    });
    expect(agent).toMatchObject({ kind: "custom", name: "claude", requiresFinishedEvent: true });
    expect(agent.storage).toBeDefined();
    const command = agent.request({ prompt: "hi", root: "/workspace", home: "/home/agent" });
    expect(command.arguments).toEqual(expect.arrayContaining(["claude-sonnet-4-5"]));
    expect(seen).toEqual([{ name: "claude-sonnet-4-5", reasoning: "high", maxOutputTokens: 2000 }]);
    const forking = await createAgent({ harness: "codex", fork: () => Promise.resolve("copy") });
    expect(forking).toMatchObject({ kind: "custom", name: "codex", forkable: true });
    expect(typeof forking.fork).toBe("function");
  });

  it("refuses an unknown field, and a request or fork that is not a function", async () => {
    for (const options of [
      { harness: "claude", modle: "x" },
      { harness: "claude", request: "x" },
      { harness: "claude", fork: {} },
    ]) {
      const error = await createAgent(options as never).catch((caught: unknown) => caught);
      expect(isOutpostError(error, "configuration")).toBe(true);
    }
    const misspelt = (await createAgent({ harness: "claude", modle: "x" } as never).catch((caught: unknown) => caught)) as Error;
    expect(misspelt.message).toContain("did you mean model?");
  });

  it("the composed agent runs the executable it was given in a dispatch", async () => {
    const agent = await createAgent({ harness: "claude", executable: join(scratch, "no-such-claude") });
    const error = await dispatch({
      agent,
      brief: "x",
      repository: scratchRepository("outpost-create-agent-"),
      sandboxProvider: localProvider({ home: "private" }),
    }).catch((caught: unknown) => caught);
    // The executable given to createAgent() is the one the turn started.
    expect(isOutpostError(error, "process")).toBe(true);
    expect((error as Error).message).toContain("no-such-claude");
  }, 60_000);
});
