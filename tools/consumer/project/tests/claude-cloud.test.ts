import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeAgent } from "@outpost/agent-claude";
import type { SandboxProvider } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { localProvider } from "@outpost/provider-local";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble } from "@outpost/cloud-doubles/vercel";
import { startModelServer } from "@outpost/testkit/model-server";
import { describe, expect, it } from "vitest";
import { commitResponder } from "./support/commit-responder.js";
import { claudeExecutable, git, scratchRepository } from "./support/installed.js";

// Claude Code on Vercel and Daytona through the real SDKs against the API doubles the provider packages ship.
describe("Claude Code on Vercel and Daytona (API doubles), from the installed packages", () => {
  it("a Vercel turn commits and is captured; it continues on Daytona, then locally, each seeing turn 1", async () => {
    const model = await startModelServer({ responder: commitResponder() });
    const vercel = await startVercelDouble();
    const daytona = await startDaytonaDouble();
    try {
      const repository = scratchRepository("outpost-consumer-cloud-");
      const conversationHome = mkdtempSync(join(tmpdir(), "outpost-consumer-cloud-conversations-"));
      const agent = claudeAgent({ baseUrl: model.url, apiKey: "sk-ant-consumer", executable: claudeExecutable(), maxRetries: 0 });
      let id: string | undefined;
      const turn = async (provider: SandboxProvider, file: string) => {
        const warnings: string[] = [];
        const result = await dispatch({
          agent,
          brief: `${id ? "TURN2: what did you do before? Then " : ""}create and commit FILE=${file}`,
          repository,
          conversationHome,
          sandboxProvider: provider,
          branch: { mode: "integrate" },
          warn: (message) => warnings.push(message),
          ...(id ? { continuation: { id } } : {}),
        });
        expect(result.completed, result.text).toBe(true);
        expect(result.commits).toHaveLength(1);
        expect(git(repository, "log", "-1", "--format=%s", "main")).toBe(`Add ${file}`);
        expect(result.conversation, `captured; warnings: ${warnings.join(" | ")}`).toBeDefined();
        if (id) expect(result.text).toContain("history_has_turn1=true");
        id ??= result.conversationId;
      };
      await turn(vercelProvider({ ...vercel.credentials, fetch: vercel.fetch }), "vercel.txt");
      await turn(daytonaProvider({ ...daytona.credentials }), "daytona.txt");
      await turn(localProvider({ home: "private" }), "local.txt");
      expect(git(repository, "status", "--porcelain")).toBe("");
      expect(model.problems).toEqual([]);
    } finally {
      await Promise.allSettled([model.close(), vercel.close(), daytona.close()]);
    }
  });
});
