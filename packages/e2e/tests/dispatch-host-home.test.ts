import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeAgent } from "@outpost/agent-claude";
import { codexAgent } from "@outpost/agent-codex";
import { geminiAgent } from "@outpost/agent-gemini";
import { opencodeAgent } from "@outpost/agent-opencode";
import type { AgentAdapter } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { conversationResponder, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { scratchRepository, scriptAgent } from "../src/index.js";
import { missingCli, pathWithClis } from "./support/cli-bin.js";

// The local provider's default lease home is the host home (reference page 002). HOME here is this test
// file's own folder (support/private-temp.ts), standing for the user's home: it holds the user's own
// configuration of every CLI, which points elsewhere. Each real CLI must still reach the scripted server
// (Outpost's settings outrank the user's) and every one of the user's files must stay byte for byte.
const DEAD = "http://127.0.0.1:9";
const USER_FILES: Record<string, string> = {
  ".claude/settings.json": `${JSON.stringify({ env: { ANTHROPIC_BASE_URL: DEAD, ANTHROPIC_MODEL: "user-model" }, theme: "dark" }, null, 2)}\n`,
  ".codex/config.toml": `# mine\nmodel = "user-model"\nmodel_provider = "mine"\n\n[model_providers.mine]\nname = "Mine"\nbase_url = "${DEAD}/v1"\nenv_key = "MY_KEY"\nwire_api = "responses"\n`,
  ".gemini/settings.json": `${JSON.stringify({ security: { auth: { selectedType: "oauth-personal" } }, ui: { theme: "GitHub" } }, null, 2)}\n`,
  ".config/opencode/opencode.json": `${JSON.stringify({ $schema: "https://opencode.ai/config.json", autoupdate: true, share: "manual" }, null, 2)}\n`,
};

const agents: Record<string, { executable: string; make: (server: ModelServer) => AgentAdapter }> = {
  claude: { executable: "claude", make: (server) => claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-test", maxRetries: 0 }) },
  codex: {
    executable: "codex",
    make: (server) => codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "test-key", model: "gpt-5.5", maxRetries: 0 }),
  },
  gemini: {
    executable: "gemini",
    make: (server) => geminiAgent({ baseUrl: server.url, apiKey: "test-key", model: "gemini-2.5-flash", maxAttempts: 1 }),
  },
  opencode: {
    executable: "opencode",
    make: (server) => opencodeAgent({ endpoint: { baseUrl: `${server.url}/v1`, apiKey: "test-key" }, model: "fake-model" }),
  },
};

function writeUserFiles(): void {
  for (const [path, content] of Object.entries(USER_FILES)) {
    mkdirSync(dirname(join(homedir(), path)), { recursive: true });
    writeFileSync(join(homedir(), path), content, { mode: 0o644 });
  }
}

function expectUserFilesUntouched(): void {
  for (const [path, content] of Object.entries(USER_FILES)) {
    expect(readFileSync(join(homedir(), path), "utf8"), path).toBe(content);
    expect(statSync(join(homedir(), path)).mode & 0o777, path).toBe(0o644);
  }
}

describe("dispatch on the local provider's default home (the host home)", () => {
  let server: ModelServer;
  const provider = () => localProvider({ variables: { PATH: pathWithClis() } });

  beforeAll(async () => {
    server = await startModelServer({ responder: conversationResponder() });
    writeUserFiles();
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const [name, { executable, make }] of Object.entries(agents)) {
    const missing = missingCli(executable);
    it.skipIf(missing !== undefined)(
      `${name}: runs in your home, reaches the configured endpoint, and leaves your own CLI configuration byte for byte`,
      async () => {
        const repository = scratchRepository();
        const result = await dispatch({
          agent: make(server),
          brief: "Create hello.txt containing hi",
          repository,
          until: [],
          sandboxProvider: provider(),
        });
        expect(result.text).toContain("MARKER_TURN1_DONE");
        expect(readFileSync(join(repository, "hello.txt"), "utf8")).toBe("hi");
        expectUserFilesUntouched();
      },
      120_000,
    );
  }

  it("claude: a continuation whose session is already in your home continues the live one, never restoring over it", async () => {
    if (missingCli("claude") !== undefined) return;
    const repository = scratchRepository();
    const agent = agents["claude"]!.make(server);
    const first = await dispatch({ agent, brief: "Create hello.txt containing hi", repository, until: [], sandboxProvider: provider() });
    const id = first.conversationId!;
    const projects = join(homedir(), ".claude", "projects");
    const live = readdirSync(projects, { recursive: true, encoding: "utf8" }).find((path) => path.endsWith(`${id}.jsonl`))!;
    const before = readFileSync(join(projects, live), "utf8");
    const warnings: string[] = [];
    const second = await dispatch({
      agent,
      brief: "TURN2: what did you do?",
      repository,
      until: [],
      sandboxProvider: provider(),
      continuation: { id },
      warn: (message) => warnings.push(message),
    });
    expect(second.text).toContain("history_has_turn1=true");
    expect(warnings.some((warning) => warning.includes("already in the sandbox home"))).toBe(true);
    // The live file grew from where it was: turn 1 as the user's home had it, then turn 2.
    expect(readFileSync(join(projects, live), "utf8").startsWith(before)).toBe(true);
    expectUserFilesUntouched();
  }, 180_000);

  it("an agent's home file that would replace one of your files fails with configuration before the turn; an identical one is left as is", async () => {
    const repository = scratchRepository();
    const base = scriptAgent({ directory: join(homedir(), "..", "script-agent") });
    const clobbering = { ...base, homeFiles: () => [{ path: ".claude/settings.json", content: "{}\n" }] };
    const error = await dispatch({ agent: clobbering, brief: "work", repository, until: [], sandboxProvider: provider() }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isOutpostError(error, "configuration"), String(error)).toBe(true);
    expect(String((error as Error).message)).toContain(".claude/settings.json");
    const same = { ...base, homeFiles: () => [{ path: ".claude/settings.json", content: USER_FILES[".claude/settings.json"]! }] };
    const result = await dispatch({ agent: same, brief: "work", repository, until: [], sandboxProvider: provider() });
    expect(result.text).not.toBe("");
    expectUserFilesUntouched();
  }, 60_000);
});
