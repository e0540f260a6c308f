import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { dispatch } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// The engine through its public entry, with the kit's script agent (a real process speaking JSON lines that
// commits a file and keeps its conversation in its home): integrate, capture, then continue.
const repository = scratchRepository("outpost-dispatch-script-");
const directory = mkdtempSync(join(tmpdir(), "outpost-dispatch-script-agent-"));
afterAll(() => {
  rmSync(repository, { recursive: true, force: true });
  rmSync(directory, { recursive: true, force: true });
});

describe("dispatch() with the kit's script agent on the local provider", () => {
  it("integrates the agent's commit into main, captures its conversation, and a continuation sees the first brief", async () => {
    const first = await dispatch({
      agent: scriptAgent({ directory, behaviour: { FILE: "note.txt", CONTENT: "from the kit" } }),
      brief: "Write note.txt.",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
    });
    expect(first.completed).toBe(true);
    expect(first.commits).toHaveLength(1);
    expect(execFileSync("git", ["-C", repository, "rev-parse", "main"], { encoding: "utf8" }).trim()).toBe(first.commits[0]);
    expect(readFileSync(join(repository, "note.txt"), "utf8")).toBe("from the kit\n");
    expect(first.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    expect(first.conversation?.id).toBe(first.conversationId);

    const second = await dispatch({
      agent: scriptAgent({ directory }),
      brief: "What did I ask?",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      continuation: { id: first.conversationId! },
    });
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.text).toContain(`saw 1 earlier prompt(s): ${JSON.stringify(["Write note.txt."])}`);
    expect(second.commits).toEqual([]);
  }, 60_000);
});
