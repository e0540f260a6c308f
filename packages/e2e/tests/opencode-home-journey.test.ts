import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opencodeAgent } from "@outpost/agent-opencode";
import { dispatch, type DispatchResult } from "@outpost/dispatch";
import type { SandboxProvider } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { conversationResponder, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { gitIn, scratchRepository } from "../src/index.js";
import { CLI_BIN, missingCli } from "./support/cli-bin.js";
import { dockerAgentProvider, dockerAgentsUnavailable } from "./support/docker-agent-provider.js";
import { runHomeJourney, type JourneyStep } from "./support/home-journey.js";

// HOME is this file's own folder (support/private-temp.ts), standing for the user's home: the local provider's
// default lease home, and where captured conversations are kept by default (no conversationHome is passed: a
// continuation in another checkout finds them there). OpenCode keeps one row per session in its database on
// that home, and its import leaves an existing row as it is. A continuation in another workspace must run there
// (the stored export then names that workspace) and continue the newest state; five turns across three
// workspaces must each see every earlier one.
const missing = missingCli("opencode");
const docker = dockerAgentsUnavailable();

/** A checkout with a root commit of its own: opencode names a project by its root commit. */
function repository(name: string): string {
  const directory = scratchRepository();
  gitIn(directory, "commit", "--quiet", "--amend", "-m", `root of workspace ${name} (${directory})`);
  return directory;
}

/** The stored export names the workspace the turn ran in, as its session directory. */
const namesWorkspace = (workspace: string) => (result: DispatchResult) => {
  const stored = JSON.parse(readFileSync(result.conversation!.file, "utf8")) as { info: { directory: string } };
  expect(stored.info.directory).toBe(workspace);
};

describe.skipIf(missing !== undefined)(`OpenCode on the user's own home${missing ? ` (${missing})` : ""}`, () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer({ responder: conversationResponder() });
  });
  afterAll(async () => server?.close());

  it(`five turns across three workspaces${docker ? "" : ", one on Docker"}: each continues the newest state, in its own workspace`, async () => {
    const workspaces = { a: repository("a"), b: repository("b"), c: repository("c") };
    const local = localProvider();
    const step = (brief: string, workspace: string): JourneyStep => ({
      brief,
      repository: workspace,
      provider: local,
      after: namesWorkspace(workspace),
    });
    await runHomeJourney({
      agent: opencodeAgent({
        endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" },
        model: "fake-model",
        executable: join(CLI_BIN, "opencode"),
      }),
      server,
      first: { brief: "Create hello.txt containing hi", repository: workspaces.a, provider: local },
      steps: [
        step("TURN2 step two, in workspace b", workspaces.b),
        docker === undefined
          ? { brief: "TURN2 step three, in workspace c", repository: workspaces.c, provider: dockerAgentProvider("first") }
          : step("TURN2 step three, in workspace c", workspaces.c),
        step("TURN2 step four, back in workspace a", workspaces.a),
        step("TURN2 step five, back in workspace b", workspaces.b),
      ],
    });
  }, 900_000);

  it("a copy on the home that went another way before the capture is replaced, not merged into the continuation", async () => {
    const a = repository("a");
    const elsewhere = repository("elsewhere");
    const agent = opencodeAgent({
      endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" },
      model: "fake-model",
      executable: join(CLI_BIN, "opencode"),
    });
    const records = homedir();
    // Another checkout's own record store (opencode conversations default to the checkout).
    const otherRecords = mkdtempSync(join(tmpdir(), "other-records-"));
    const turn = (brief: string, repository: string, provider: SandboxProvider, conversationHome: string, id?: string) =>
      dispatch({
        agent,
        brief,
        repository,
        sandboxProvider: provider,
        until: [],
        requireConversation: true,
        conversationHome,
        ...(id ? { continuation: { id } } : {}),
      });
    const first = await turn("Create hello.txt containing hi", a, localProvider(), records);
    const id = first.conversationId!;
    const folder = (home: string) => join(home, ".outpost", "conversations", "opencode", id);
    cpSync(folder(records), folder(otherRecords), { recursive: true });
    // A side turn on this home from the other store: the home's copy now holds it, the first store does not.
    const side = await turn("TURN2 side branch on this home", a, localProvider(), otherRecords, id);
    expect(side.text).toContain("history_has_turn1=true");
    // The first store's conversation goes on on another machine (a home of its own), after the side turn.
    const away = await turn("TURN2 step two, on another home", elsewhere, localProvider({ home: "private" }), records, id);
    expect(away.text).toContain("history_has_turn1=true");
    // Back on this home from the first store: the turn continues step two, and never sees the side branch.
    const back = await turn("TURN2 step three, back on this home", a, localProvider(), records, id);
    expect(back.text).toContain("history_has_turn1=true");
    const request = server.requests.filter((logged) => logged.kind === "turn").at(-1)!;
    expect(request.body).toContain("TURN2 step two, on another home");
    expect(request.body).not.toContain("side branch");
    const stored = readFileSync(back.conversation!.file, "utf8");
    expect(stored).toContain("TURN2 step three, back on this home");
    expect(stored).not.toContain("side branch");
    expect(server.problems).toEqual([]);
  }, 900_000);
});
