import { isOutpostError } from "@outpost/core";
import { describe, expect, it } from "vitest";
import {
  CODEX_API_KEY_VARIABLE,
  CODEX_BOOTSTRAP_PACKAGE,
  CODEX_CLI_VERSION,
  codexAgent,
  codexConfig,
  codexConfigOverrides,
} from "../src/index.js";

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
  const OPTIONS = { baseUrl: "http://127.0.0.1:18181/v1", apiKey: "secret-codex-key", model: "gpt-5.5" };
  const agent = codexAgent(OPTIONS);

  it("declares its features", () => {
    expect(agent).toMatchObject({
      name: "codex",
      executable: "codex",
      bootstrap: "codex",
      cli: { npmPackage: "@openai/codex", version: CODEX_CLI_VERSION },
      requiresFinishedEvent: true,
      usage: "events",
      resumable: true,
      // Decided in the lease, where the version is learned.
      cliVersion: {},
    });
    expect(agent.forkable).toBeUndefined();
    expect(CODEX_BOOTSTRAP_PACKAGE).toBe("@openai/codex@0.171.0");
  });

  it("runs `codex exec --json` unattended with the prompt on stdin", () => {
    const command = agent.command(turn);
    expect(command).toMatchObject({ executable: "codex", stdin: "Create hello.txt", directory: "/work/repo" });
    expect(command.arguments).toEqual([
      "exec",
      ...codexConfigOverrides(OPTIONS),
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
    const learned = { ...turn, cliVersion: { version: "0.171.0" } };
    expect(agent.command({ ...learned, resume: { id: ID, fork: true } }).arguments.slice(-3)).toEqual(["fork", ID, "-"]);
    // Unknown (not learned in time): fork is refused before the CLI runs, naming the flag that says the release.
    expect(() => agent.command({ ...turn, resume: { id: ID, fork: true } })).toThrow(
      expect.objectContaining({ code: "configuration", message: expect.stringMatching(/version is unknown.*--agent-version/) }),
    );
    expect(agent.unsupported?.("fork", { problem: "slow" })).toMatch(/unknown/);
    expect(agent.unsupported?.("fork", { version: "0.130.0" })).toMatch(/codex 0\.130\.0 has no `exec fork`/);
  });

  it("refuses option-like ids and pre-assigned ids with `configuration`", () => {
    expect(configurationError(() => agent.command({ ...turn, resume: { id: "--last" } }))).toBe(true);
    expect(configurationError(() => agent.command({ ...turn, resume: { id: "a b" } }))).toBe(true);
    expect(configurationError(() => agent.command({ ...turn, conversationId: ID }))).toBe(true);
  });

  it("passes the key as a variable named in the -c overrides, and writes no file into the home (on a host home it is the user's)", () => {
    expect(agent.variables).toEqual({ [CODEX_API_KEY_VARIABLE]: "secret-codex-key" });
    expect(agent.homeFiles?.(turn) ?? []).toEqual([]);
    const args = agent.command(turn).arguments;
    expect(args.join(" ")).not.toContain("secret-codex-key");
    expect(args).toContain(`model_providers.outpost.env_key="${CODEX_API_KEY_VARIABLE}"`);
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

  it("passes the same settings as -c overrides, with values as TOML (hostile values stay one string)", () => {
    const overrides = codexConfigOverrides({ baseUrl: 'http://x"\nmodel_provider = "evil', model: "m", maxRetries: 0 });
    expect(overrides.filter((_, index) => index % 2 === 0).every((flag) => flag === "-c")).toBe(true);
    const pairs = overrides.filter((_, index) => index % 2 === 1);
    expect(pairs).toEqual([
      "check_for_update_on_startup=false",
      'model="m"',
      "analytics.enabled=false",
      "features.plugins=false",
      'model_provider="outpost"',
      'model_providers.outpost.name="Outpost endpoint"',
      'model_providers.outpost.base_url="http://x\\"\\nmodel_provider = \\"evil"',
      `model_providers.outpost.env_key="${CODEX_API_KEY_VARIABLE}"`,
      'model_providers.outpost.wire_api="responses"',
      "model_providers.outpost.request_max_retries=0",
      "model_providers.outpost.stream_max_retries=0",
    ]);
  });

  it("escapes hostile values so they cannot add TOML keys", () => {
    const content = codexConfig({ baseUrl: 'http://x"\nmodel_provider = "evil', model: "m\n[evil]" }).content;
    expect(content).toContain('base_url = "http://x\\"\\nmodel_provider = \\"evil"');
    expect(content.split("\n").filter((line) => line.startsWith("model_provider"))).toEqual(['model_provider = "outpost"']);
    expect(content).not.toMatch(/^\[evil\]/m);
  });
});
