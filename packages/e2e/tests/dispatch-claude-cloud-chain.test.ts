import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, describe, expect, it } from "vitest";
import { claudeAgent, claudeConversationStore } from "@outpost/agent-claude";
import { archivedStore } from "@outpost/conversations";
import type { SandboxProvider } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { localProvider } from "@outpost/provider-local";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble } from "@outpost/cloud-doubles/vercel";
import { s3Gate, type MotoServer } from "@outpost/testkit/gates";
import { startModelServer } from "@outpost/testkit/model-server";
import { s3Transport } from "@outpost/transport-s3";
import { gitIn, scratchRepository } from "../src/index.js";
import { demoScript, TURN1_MARKER } from "../src/demo/demo-script.js";

// One conversation of the real Claude Code CLI crosses three sandboxes and two machines' worth of storage:
// a turn in a Vercel sandbox, archived to S3 (moto), continued in a Daytona sandbox, then in a local one.
// Each step starts from a fresh host conversation home, a fresh S3 client and a fresh store, so the
// history can only have travelled through S3. The cloud providers are the real SDKs against their API doubles.
const require = createRequire(import.meta.url);
const claudePackage = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
const claudeBinary = join(claudePackage, (require("@anthropic-ai/claude-code/package.json") as { bin: { claude: string } }).bin.claude);

const gated = await s3Gate();
afterAll(async () => {
  await gated.server?.stop();
});

function archivedClaudeStore(server: MotoServer) {
  const client = new S3Client(server.clientSettings());
  server.onStop(() => client.destroy());
  return archivedStore(claudeConversationStore(), s3Transport({ client, bucket: "conversations", prefix: "team" }), { namespace: "chain" });
}

(gated.server ? describe : describe.skip)("a Claude Code conversation across Vercel → S3 → Daytona → local", () => {
  it("each turn sees the history of the previous one; the first turn's commit integrates on the host", async () => {
    const s3 = gated.server!;
    await s3.createBucket("conversations");
    const model = await startModelServer({
      script: [
        ...demoScript(),
        (request) => ({
          text: `history_has_turn2=${request.transcript.includes(TURN1_MARKER) && request.transcript.includes("history_has_turn1=true")} <outpost>done</outpost>`,
        }),
      ],
    });
    const vercel = await startVercelDouble();
    const daytona = await startDaytonaDouble();
    try {
      const repository = scratchRepository();
      const turn = (provider: SandboxProvider, brief: string, continuation?: string) =>
        dispatch({
          agent: claudeAgent({
            baseUrl: model.url,
            apiKey: "sk-ant-test",
            executable: claudeBinary,
            maxRetries: 0,
            storage: archivedClaudeStore(s3),
          }),
          brief,
          repository,
          conversationHome: mkdtempSync(join(tmpdir(), "outpost-chain-home-")),
          sandboxProvider: provider,
          ...(continuation ? { continuation: { id: continuation } } : {}),
        });

      const first = await turn(vercelProvider({ ...vercel.credentials, fetch: vercel.fetch }), "Create hello.txt and commit it.");
      expect(first.completed).toBe(true);
      expect(first.commits).toHaveLength(1);
      expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("Add hello.txt");
      expect(readFileSync(join(repository, "hello.txt"), "utf8")).toContain("Hello");
      const id = first.conversationId!;
      expect(first.conversation?.reference?.key).toBe(`chain/claude/${id}`);

      const second = await turn(daytonaProvider({ ...daytona.credentials }), "TURN2: what did you do?", id);
      expect(second.conversationId).toBe(id);
      expect(second.text).toContain("history_has_turn1=true");

      const third = await turn(localProvider({ home: "private" }), "TURN3: and now?", id);
      expect(third.conversationId).toBe(id);
      expect(third.text).toContain("history_has_turn2=true");
      // The model server saw the whole history on each continued turn: turn 1's marker, then turn 2's brief.
      const transcripts = model.turns().map((request) => request.model?.transcript ?? "");
      const turn2 = transcripts.filter((text) => text.includes("TURN2: what did you do?"));
      const turn3 = transcripts.filter((text) => text.includes("TURN3: and now?"));
      expect(turn2.length).toBeGreaterThan(0);
      expect(turn2.every((text) => text.includes(TURN1_MARKER))).toBe(true);
      expect(turn3.length).toBeGreaterThan(0);
      expect(turn3.every((text) => text.includes(TURN1_MARKER) && text.includes("TURN2: what did you do?"))).toBe(true);
      expect(execFileSync("git", ["status", "--porcelain"], { cwd: repository, encoding: "utf8" })).toBe("");
      expect(model.problems).toEqual([]);
    } finally {
      await Promise.allSettled([model.close(), vercel.close(), daytona.close()]);
    }
  }, 300_000);
});
