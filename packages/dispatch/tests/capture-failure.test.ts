import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { dispatch, type ConversationError, type DispatchRecovery } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";
import { failingCaptureAgent } from "./support/failing-capture-agent.js";

// A capture that genuinely fails (a real sandbox script dies) is never silent: the result says why, and
// requireConversation turns it into a failed dispatch whose work is kept.
const directory = mkdtempSync(join(tmpdir(), "outpost-capture-failure-agent-"));
const repositories: string[] = [];
afterAll(() => {
  for (const path of [directory, ...repositories]) rmSync(path, { recursive: true, force: true });
});

function repository(): string {
  const path = scratchRepository("outpost-capture-failure-");
  repositories.push(path);
  return path;
}

const git = (cwd: string, ...args: string[]): string => execFileSync("git", ["-C", cwd, ...args], { encoding: "utf8" }).trim();

describe("a failed capture", () => {
  it("is reported by the result (code and message, whole stderr lines) besides the warning", async () => {
    const warnings: string[] = [];
    const result = await dispatch({
      agent: failingCaptureAgent(directory, { FILE: "kept.txt" }),
      brief: "Write kept.txt.",
      repository: repository(),
      sandboxProvider: localProvider({ home: "private" }),
      warn: (message) => warnings.push(message),
    });
    expect(result.completed).toBe(true);
    expect(result.commits).toHaveLength(1);
    expect(result.conversation).toBeUndefined();
    const failure: ConversationError | undefined = result.conversationError;
    expect(failure).toMatchObject({ code: "process", pass: 1, conversationId: result.conversationId });
    expect(failure!.message).toContain(`Could not capture script-agent conversation ${result.conversationId}`);
    // The error line is whole: a byte cut once left only `re is not defined`.
    expect(failure!.message).toMatch(/: (.*\n)*ReferenceError: __require is not defined\n/);
    expect(failure!.message).not.toContain("xxx");
    expect(warnings.some((warning) => warning.includes("ReferenceError: __require is not defined"))).toBe(true);
  }, 60_000);

  it("fails the dispatch with code session under requireConversation, the commits kept on the work branch", async () => {
    const checkout = repository();
    const failure = await dispatch({
      agent: failingCaptureAgent(directory, { FILE: "work.txt" }),
      brief: "Write work.txt.",
      repository: checkout,
      branch: { mode: "integrate" },
      sandboxProvider: localProvider({ home: "private" }),
      requireConversation: true,
      warn: () => undefined,
    }).catch((error: unknown) => error);
    expect(isOutpostError(failure, "session")).toBe(true);
    if (!isOutpostError(failure)) throw failure;
    expect(failure.message).toContain("The conversation was required but could not be captured (process)");
    expect(failure.message).toContain("ReferenceError: __require is not defined");
    expect(failure.details["conversationError"]).toMatchObject({ code: "process", pass: 1 });
    const recovery = failure.details["recovery"] as DispatchRecovery;
    expect(recovery.phase).toBe("turns");
    expect(recovery.commits).toHaveLength(1);
    // Not integrated: main is untouched, the work branch holds the agent's commit.
    expect(git(checkout, "log", "--format=%s", "main")).toBe("seed");
    expect(git(checkout, "rev-parse", recovery.branch!)).toBe(recovery.commits[0]);
    expect(git(checkout, "show", `${recovery.branch!}:work.txt`)).toBe("written by the script agent");
  }, 60_000);

  it("requireConversation with a captured conversation succeeds; with an agent that keeps none it is refused up front", async () => {
    const checkout = repository();
    const captured = await dispatch({
      agent: scriptAgent({ directory }),
      brief: "Answer.",
      repository: checkout,
      sandboxProvider: localProvider({ home: "private" }),
      requireConversation: true,
    });
    expect(captured.conversation?.id).toBe(captured.conversationId);
    expect(captured.conversationError).toBeUndefined();
    const refused = await dispatch({
      agent: scriptAgent({ directory, storage: false }),
      brief: "Answer.",
      repository: checkout,
      sandboxProvider: localProvider({ home: "private" }),
      requireConversation: true,
    }).catch((error: unknown) => error);
    expect(isOutpostError(refused, "configuration")).toBe(true);
    expect((refused as Error).message).toContain("script-agent has no conversation storage, so requireConversation cannot be met");
  }, 60_000);
});
