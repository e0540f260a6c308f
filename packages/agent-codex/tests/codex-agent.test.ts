import { isOutpostError } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { CODEX_API_KEY_VARIABLE, CODEX_BOOTSTRAP_PACKAGE, CODEX_CLI_VERSION, codexAgent, codexConfig } from "../src/index.js";

const turn = { prompt: "Create hello.txt", root: "/work/repo", home: "/home/agent" };
const ID = "01a23602-2a2f-75f3-9c72-23a3abd8668b";

function configurationError(run: () => unknown): boolean {
  try {
    run();
  } catch (error) {
    return isOutpostError(error, "configuration");
  }
  return false;
}

describe("codexAgent", () => {
  const agent = codexAgent({ baseUrl: "http://127.0.0.1:18181/v1", apiKey: "secret-codex-key", model: "gpt-5.5" });

  it("declares its features", () => {
    expect(agent).toMatchObject({
      name: "codex",
      executable: "codex",
      bootstrap: "codex",
      cli: { npmPackage: "@openai/codex", version: CODEX_CLI_VERSION },
      requiresFinishedEvent: true,
      usage: "events",
      resumable: true,
      forkable: true,
    });
    expect(CODEX_BOOTSTRAP_PACKAGE).toBe("@openai/codex@0.171.0");
  });

  it("runs `codex exec --json` unattended with the prompt on stdin", () => {
    const command = agent.command(turn);
    expect(command).toMatchObject({ executable: "codex", stdin: "Create hello.txt", directory: "/work/repo" });
    expect(command.arguments).toEqual([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      "--model",
      "gpt-5.5",
      "-",
    ]);
  });

  it("resumes with `exec resume <id>` and forks with `exec fork <id>`", () => {
    expect(agent.command({ ...turn, resume: { id: ID } }).arguments.slice(-3)).toEqual(["resume", ID, "-"]);
    expect(agent.command({ ...turn, resume: { id: ID, fork: true } }).arguments.slice(-3)).toEqual(["fork", ID, "-"]);
  });

  it("refuses option-like ids and pre-assigned ids with `configuration`", () => {
    expect(configurationError(() => agent.command({ ...turn, resume: { id: "--last" } }))).toBe(true);
    expect(configurationError(() => agent.command({ ...turn, resume: { id: "a b" } }))).toBe(true);
    expect(configurationError(() => agent.command({ ...turn, conversationId: ID }))).toBe(true);
  });

  it("passes the key as a variable named in the config, never in the file", () => {
    expect(agent.variables).toEqual({ [CODEX_API_KEY_VARIABLE]: "secret-codex-key" });
    const [config] = agent.homeFiles?.(turn) ?? [];
    expect(config?.path).toBe(".codex/config.toml");
    expect(config?.content).not.toContain("secret-codex-key");
    expect(config?.content).toContain(`env_key = "${CODEX_API_KEY_VARIABLE}"`);
    expect(codexAgent({ apiKey: "k" }).variables).toEqual({ OPENAI_API_KEY: "k" });
  });

  it("writes the measured offline config: custom Responses provider, no update check, analytics and plugins off", () => {
    const content = codexConfig({ baseUrl: "http://127.0.0.1:1/v1", model: "gpt-5.5", maxRetries: 0 }).content;
    for (const line of [
      "check_for_update_on_startup = false",
      'model = "gpt-5.5"',
      'model_provider = "outpost"',
      "[analytics]\nenabled = false",
      "[features]\nplugins = false",
      "[model_providers.outpost]",
      'base_url = "http://127.0.0.1:1/v1"',
      'wire_api = "responses"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
    ]) {
      expect(content).toContain(line);
    }
  });

  it("escapes hostile values so they cannot add TOML keys", () => {
    const content = codexConfig({ baseUrl: 'http://x"\nmodel_provider = "evil', model: "m\n[evil]" }).content;
    expect(content).toContain('base_url = "http://x\\"\\nmodel_provider = \\"evil"');
    expect(content.split("\n").filter((line) => line.startsWith("model_provider"))).toEqual(['model_provider = "outpost"']);
    expect(content).not.toMatch(/^\[evil\]/m);
  });
});
