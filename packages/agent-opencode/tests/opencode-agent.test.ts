import { isOutpostError } from "@outpost/core";
import type { AgentTurn } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { OPENCODE_CONFIG_VARIABLE, opencodeAgent } from "../src/index.js";

const configOf = (command: { variables: Readonly<Record<string, string>> }) =>
  JSON.parse(command.variables[OPENCODE_CONFIG_VARIABLE] ?? "{}");

const turn: AgentTurn = { prompt: "Create hello.txt containing hi", root: "/work/repo", home: "/home/agent" };
const endpoint = { baseUrl: "http://127.0.0.1:18181/v1", apiKey: "sk-secret-value" };

describe("opencodeAgent", () => {
  it("declares its features: event usage, resumable, forkable, no native final event, pinned bootstrap", () => {
    expect(opencodeAgent({ endpoint })).toMatchObject({
      kind: "cli",
      specificationVersion: "v1",
      name: "opencode",
      executable: "opencode",
      bootstrap: "opencode",
      cli: { npmPackage: "opencode-ai", version: "1.18.33" },
      requiresFinishedEvent: false,
      usage: "events",
      resumable: true,
      forkable: true,
    });
  });

  it("captures through the opencode export/import store by default, or the given one", () => {
    expect(typeof opencodeAgent().storage?.capture).toBe("function");
    const storage = {
      specificationVersion: "v1" as const,
      name: "mine",
      locate: async () => {
        throw new Error("unused");
      },
      capture: async () => {
        throw new Error("unused");
      },
      restore: async () => {},
    };
    expect(opencodeAgent({ storage }).storage).toBe(storage);
  });

  it("runs `opencode run` with JSON events, the prompt on stdin, and the offline switches", () => {
    const agent = opencodeAgent({ endpoint, model: "fake-model" });
    const command = agent.command({ ...turn, cliVersion: { version: "1.18.33" } });
    expect(command).toMatchObject({ executable: "opencode", stdin: turn.prompt, directory: "/work/repo" });
    expect(command.arguments).toEqual(["run", "--format", "json", "--auto", "--model", "outpost/fake-model"]);
    // Unknown version: neither permission flag (each stops the releases without it).
    expect(agent.command(turn).arguments).toEqual(["run", "--format", "json", "--model", "outpost/fake-model"]);
    expect(agent.command({ ...turn, cliVersion: { version: "1.15.13" } }).arguments).toContain("--dangerously-skip-permissions");
    expect(command.variables).toMatchObject({
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      OPENCODE_DISABLE_SHARE: "1",
      npm_config_offline: "true",
      OUTPOST_OPENCODE_API_KEY: "sk-secret-value",
    });
  });

  it("resumes with --session and forks with --fork", () => {
    const agent = opencodeAgent({ endpoint });
    const id = "ses_dc9aa0550ffeSQs24veX6XrWYC";
    expect(agent.command({ ...turn, resume: { id } }).arguments?.slice(-2)).toEqual(["--session", id]);
    expect(agent.command({ ...turn, resume: { id, fork: true } }).arguments?.slice(-3)).toEqual(["--session", id, "--fork"]);
  });

  it.each(["--help", "ses_../../x", "0cb916db-26aa", "ses_"])("refuses the session id %j with code configuration", (id) => {
    let thrown: unknown;
    try {
      opencodeAgent({ endpoint }).command({ ...turn, resume: { id } });
    } catch (error) {
      thrown = error;
    }
    expect(isOutpostError(thrown, "configuration")).toBe(true);
  });

  it("passes an inline config (no home file: on a host home it is the user's) that points at the endpoint, references the key by variable, and switches off autoupdate and sharing", () => {
    const agent = opencodeAgent({ endpoint, model: "fake-model" });
    expect(agent.homeFiles?.(turn) ?? []).toEqual([]);
    const command = agent.command({ ...turn, model: "other-model" });
    expect(command.variables[OPENCODE_CONFIG_VARIABLE]).not.toContain("sk-secret-value");
    const config = configOf(command);
    expect(config).toMatchObject({
      autoupdate: false,
      share: "disabled",
      model: "outpost/other-model",
      small_model: "outpost/other-model",
      permission: { edit: "allow", bash: "allow", webfetch: "deny" },
      provider: {
        outpost: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: "http://127.0.0.1:18181/v1", apiKey: "{env:OUTPOST_OPENCODE_API_KEY}" },
        },
      },
    });
    expect(Object.keys(config.provider.outpost.models)).toEqual(["fake-model", "other-model"]);
  });

  it("keeps a model that names another provider as given", () => {
    const agent = opencodeAgent({ endpoint });
    expect(agent.command({ ...turn, model: "anthropic/claude" }).arguments).toContain("anthropic/claude");
    const config = configOf(agent.command({ ...turn, model: "anthropic/claude" }));
    expect(config.model).toBe("anthropic/claude");
    expect(Object.keys(config.provider.outpost.models)).toEqual([]);
  });

  it("without an endpoint writes only the unattended defaults", () => {
    const config = configOf(opencodeAgent().command(turn));
    expect(config.provider).toBeUndefined();
    expect(config.autoupdate).toBe(false);
  });
});
