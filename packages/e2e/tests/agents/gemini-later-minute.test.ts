// A Gemini CLI continuation that starts in a later minute than the transcript it resumes: the CLI appends the
// turn to the resumed file and also starts a stub named after the current minute (session-<minute>-<id8>),
// so two files hold the id. The capture takes the one the turn was appended to. Turns of the other agent tests
// fall in one minute, where the stub's name is the transcript's own and the case never shows.
import { mkdir, mkdtemp, readdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { geminiAgent } from "@outpost/agent-gemini";
import type { SandboxLease } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { conversationResponder, startModelServer } from "@outpost/testkit/model-server";
import { describe, expect, it } from "vitest";
import { agentSandbox } from "../support/agent-sandbox.js";
import { missingCli, pathWithClis } from "../support/cli-bin.js";
import { runAgentTurn } from "../support/run-agent-turn.js";
import { writeHomeFiles } from "../support/write-home-files.js";

const unavailable = missingCli("gemini");

describe.skipIf(unavailable !== undefined)(`gemini: a continuation in a later minute${unavailable ? ` (${unavailable})` : ""}`, () => {
  it("captures the transcript the turn was appended to, not the stub the CLI started beside it", async () => {
    const server = await startModelServer({
      textDeltaSize: 7,
      responder: conversationResponder({ file: "hello.txt", content: "hi", turn1Marker: "MARKER_TURN1_DONE" }),
    });
    const agent = geminiAgent({ baseUrl: server.url, apiKey: "outpost-test-key", model: "gemini-2.5-flash", maxAttempts: 1 });
    const sandbox = await agentSandbox(localProvider({ home: "private", variables: { PATH: pathWithClis() } }));
    try {
      const repository = await mkdtemp(join(sandbox.scratch, "host-repository-"));
      const context = async (lease: SandboxLease, label: string) => {
        const staging = join(sandbox.scratch, `staging-${label}`);
        await mkdir(staging, { recursive: true });
        return { repository, sandbox: lease, staging, local: true };
      };
      const first = await sandbox.lease("workspace-one");
      const turn1 = await runAgentTurn(agent, first, { prompt: "Create hello.txt containing hi", deadlineMs: 120_000 });
      expect(turn1.result.status, turn1.result.stderr.slice(-2000)).toBe(0);
      const id = turn1.conversationId as string;
      const record = await agent.storage!.capture(id, await context(first, "capture"));

      const lease = await sandbox.lease("workspace-two");
      await writeHomeFiles(lease, agent.homeFiles?.({ prompt: "", root: lease.root, home: lease.home }) ?? []);
      await agent.storage!.restore(record, await context(lease, "restore"));
      // The restored transcript as if its first turn had run in an earlier minute (waiting for one is slow).
      const chats = join(lease.home, ".gemini/tmp/workspace-two/chats");
      const [restored] = await readdir(chats);
      const earlier = restored!.replace(/^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-/, "session-2020-01-01T00-00-");
      expect(earlier).not.toBe(restored);
      await rename(join(chats, restored!), join(chats, earlier));

      const turn2 = await runAgentTurn(agent, lease, { prompt: "TURN2: what did you do?", resume: { id }, deadlineMs: 120_000 });
      expect(turn2.result.status, turn2.result.stderr.slice(-2000)).toBe(0);
      expect((await readdir(chats)).length).toBe(2);
      const again = await agent.storage!.capture(turn2.conversationId ?? id, await context(lease, "capture-two"));
      expect(again.file.endsWith(earlier)).toBe(true);
      const captured = await readFile(again.file, "utf8");
      expect(captured).toContain("MARKER_TURN1_DONE");
      expect(captured).toContain("MARKER_TURN2_DONE");
    } finally {
      await sandbox.dispose();
      await server.close();
    }
  }, 240_000);
});
