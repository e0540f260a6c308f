import { mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { gitIn, scratchRepository, scriptAgent } from "../src/index.js";

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));

function leftovers(repository: string) {
  return {
    worktrees: gitIn(repository, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((line) => line.startsWith("worktree ")),
    branches: gitIn(repository, "for-each-ref", "--format=%(refname:short)", "refs/heads"),
    workspaces: readdirSync(join(repository, ".outpost", "workspaces"), { withFileTypes: true }).map((entry) => entry.name),
    records: readdirSync(join(repository, ".outpost", "storage", "activity")).filter((name) => name.endsWith(".json")),
  };
}

describe("a dispatch that fails before its agent runs leaves no worktree or branch behind", () => {
  for (const mode of ["integrate", "named"] as const) {
    it(`${mode}: a failing workspaceReady hook`, async () => {
      const repository = scratchRepository();
      const error = await dispatch({
        agent: scriptAgent({ directory: agentDirectory }),
        brief: "never runs",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: mode === "named" ? { mode, name: "feature/hooked" } : { mode },
        hooks: { workspaceReady: ["echo broken >&2; exit 3"] },
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({ code: "process" });
      expect(leftovers(repository)).toEqual({ worktrees: [`worktree ${repository}`], branches: "main", workspaces: [], records: [] });
    });
  }

  it("a copy refused because it goes through a link leaving the checkout", async () => {
    const repository = scratchRepository();
    const outside = mkdtempSync(join(tmpdir(), "outpost-outside-"));
    writeFileSync(join(outside, "secret"), "s\n");
    symlinkSync(outside, join(repository, "linked"));
    const error = await dispatch({
      agent: scriptAgent({ directory: agentDirectory }),
      brief: "never runs",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      copies: ["linked/secret"],
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: "workspace" });
    expect(leftovers(repository)).toEqual({ worktrees: [`worktree ${repository}`], branches: "main", workspaces: [], records: [] });
  });
});

describe("long briefs", () => {
  it("a brief too long for the agent's command line is refused before anything is allocated (Kimi takes it as an argument)", async () => {
    const { kimiAgent } = await import("@outpost/agent-kimi");
    const repository = scratchRepository();
    const brief = `${"x".repeat(200 * 1024)}\n`;
    const error = await dispatch({
      agent: kimiAgent({ executable: "/nonexistent/kimi" }),
      brief,
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
    }).then(
      () => undefined,
      (caught: unknown) => caught as Error & { code: string },
    );
    expect(error?.code).toBe("configuration");
    expect(error?.message).toContain("over the 131071-byte limit");
    expect(gitIn(repository, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
  });

  it("a 200 KiB brief reaches an agent that reads it on stdin", async () => {
    const repository = scratchRepository();
    const brief = `${"y".repeat(200 * 1024)}\n`;
    // A shell stands in for a CLI reading its prompt on stdin: it answers with the number of bytes it got.
    const agent = {
      ...scriptAgent({ directory: agentDirectory }),
      command: (turn: { prompt: string; root: string }) => ({
        executable: "sh",
        arguments: ["-c", 'wc -c | tr -d \' \' | sed \'s/.*/{"type":"result","text":"&"}/\''],
        stdin: turn.prompt,
        directory: turn.root,
      }),
      createDecoder: () => ({
        decode: (line: string) => {
          const parsed = JSON.parse(line) as { text: string };
          return [
            { type: "text", text: parsed.text },
            { type: "finished", text: parsed.text },
          ];
        },
      }),
      storage: undefined,
    };
    const result = await dispatch({
      agent: agent as never,
      brief,
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      until: [],
    });
    expect(result.text).toBe(String(Buffer.byteLength(brief)));
  });
});
