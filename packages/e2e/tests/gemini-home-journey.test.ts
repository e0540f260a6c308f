import { readFileSync, readdirSync, utimesSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { geminiAgent } from "@outpost/agent-gemini";
import type { AgentAdapter } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { conversationResponder, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";
import { CLI_BIN, missingCli } from "./support/cli-bin.js";
import { dockerAgentProvider, dockerAgentsUnavailable } from "./support/docker-agent-provider.js";
import { runHomeJourney } from "./support/home-journey.js";

// HOME is this file's own folder (support/private-temp.ts), standing for the user's home: the local provider's
// default lease home, and where captured conversations are kept by default (no conversationHome is passed: a
// continuation in another checkout finds them there). Gemini CLI keeps a session under the project folder of
// the workspace it ran in (~/.gemini/tmp/<short name>/chats), so every workspace the conversation visits on
// that home keeps a copy; each capture must take the one the turn continued.
const missing = missingCli("gemini");
const docker = dockerAgentsUnavailable();

describe.skipIf(missing !== undefined)(`Gemini on the user's own home${missing ? ` (${missing})` : ""}`, () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer({ responder: conversationResponder() });
  });
  afterAll(async () => server?.close());
  const agent = (): AgentAdapter =>
    geminiAgent({
      baseUrl: server.url,
      apiKey: "outpost-test-key",
      model: "gemini-2.5-flash",
      maxAttempts: 1,
      executable: join(CLI_BIN, "gemini"),
    });
  const tmp = () => join(homedir(), ".gemini", "tmp");
  /** The chats of conversation `id` on this home, relative to ~/.gemini/tmp (`<short name>/chats/…`). */
  const chatsOf = (id: string) =>
    readdirSync(tmp(), { recursive: true, encoding: "utf8" }).filter((path) => path.endsWith(`-${id.slice(0, 8)}.jsonl`));

  it(`five turns across three workspaces${docker ? "" : ", one on Docker"}: no turn is lost, nothing asks to remove files`, async () => {
    const workspaces = { a: scratchRepository(), b: scratchRepository(), c: scratchRepository() };
    const local = localProvider();
    const { id } = await runHomeJourney({
      agent: agent(),
      server,
      first: { brief: "Create hello.txt containing hi", repository: workspaces.a, provider: local },
      steps: [
        { brief: "TURN2 step two, in workspace b", repository: workspaces.b, provider: local },
        {
          brief: "TURN2 step three, in workspace c",
          repository: workspaces.c,
          provider: docker === undefined ? dockerAgentProvider("first") : local,
        },
        { brief: "TURN2 step four, back in workspace a", repository: workspaces.a, provider: local },
        { brief: "TURN2 step five, back in workspace b", repository: workspaces.b, provider: local },
      ],
    });
    // Each local workspace's project folder on this home keeps its copy: nothing was removed.
    expect(new Set(chatsOf(id).map((path) => path.split("/")[0])).size).toBe(2);
  }, 600_000);

  it("captures the copy of the workspace the turn ran in, even when another workspace's copy was written later", async () => {
    const workspaces = { a: scratchRepository(), b: scratchRepository() };
    const local = localProvider();
    let id = "";
    const later = new Date(Date.now() + 3_600_000);
    await runHomeJourney({
      agent: agent(),
      server,
      onFirst: (first) => (id = first),
      first: { brief: "Create hello.txt containing hi", repository: workspaces.a, provider: local },
      steps: [
        { brief: "TURN2 step two, in workspace b", repository: workspaces.b, provider: local },
        {
          brief: "TURN2 step three, in workspace b again",
          repository: workspaces.b,
          provider: local,
          // Workspace a's copy is touched after b's turn (a sync, a clock ahead, the user's own gemini there):
          // the newest file on the home is no longer the one this turn continues.
          before: () => {
            const registry = JSON.parse(readFileSync(join(homedir(), ".gemini", "projects.json"), "utf8")) as {
              projects: Record<string, string>;
            };
            const others = chatsOf(id).filter((path) => !path.startsWith(`${registry.projects[workspaces.b]}/`));
            expect(others.length).toBeGreaterThanOrEqual(1);
            for (const path of others) utimesSync(join(tmp(), path), later, later);
          },
        },
      ],
    });
  }, 600_000);
});
