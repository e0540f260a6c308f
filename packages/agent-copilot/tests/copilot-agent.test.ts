import { isOutpostError } from "@outpost/core";
import type { AgentTurn } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { copilotAgent } from "../src/index.js";

const turn: AgentTurn = { prompt: "Create hello.txt containing hi", root: "/work/repo", home: "/home/agent" };
const endpoint = { baseUrl: "http://127.0.0.1:18181/v1", apiKey: "sk-secret-value" };

describe("copilotAgent", () => {
  it("declares its features: session usage, resumable, not forkable, pinned bootstrap", () => {
    const agent = copilotAgent({ endpoint });
    expect(agent).toMatchObject({
      kind: "cli",
      specificationVersion: "v1",
      name: "copilot",
      executable: "copilot",
      bootstrap: "copilot",
      cli: { npmPackage: "@github/copilot", version: "1.0.102" },
      requiresFinishedEvent: true,
      usage: "session",
      resumable: true,
      forkable: false,
    });
    expect(agent.storage?.name).toBe("copilot");
    expect(typeof agent.transcriptUsage).toBe("function");
  });

  it("builds an unattended, offline command with the prompt on stdin", () => {
    const agent = copilotAgent({ endpoint, model: "fake-model", cacheDirectory: "/cache" });
    // Unknown version: the flag older releases stop on is left out (offline mode keeps telemetry off).
    expect(agent.command(turn).arguments).not.toContain("--disable-client-telemetry");
    const command = agent.command({ ...turn, cliVersion: { version: "1.0.102" } });
    expect(command.executable).toBe("copilot");
    expect(command.stdin).toBe(turn.prompt);
    expect(command.directory).toBe("/work/repo");
    expect(command.arguments).toEqual([
      "--output-format",
      "json",
      "--allow-all-tools",
      "--no-ask-user",
      "--no-auto-update",
      "--no-color",
      "--disable-client-telemetry",
      "--model",
      "fake-model",
    ]);
    expect(command.variables).toMatchObject({
      COPILOT_OFFLINE: "true",
      COPILOT_AUTO_UPDATE: "false",
      COPILOT_PROVIDER_BASE_URL: "http://127.0.0.1:18181/v1",
      COPILOT_PROVIDER_TYPE: "openai",
      COPILOT_PROVIDER_WIRE_API: "completions",
      COPILOT_PROVIDER_API_KEY: "sk-secret-value",
      COPILOT_MODEL: "fake-model",
      XDG_CACHE_HOME: "/cache",
    });
  });

  it("keeps the credential out of the arguments and out of home files", () => {
    const agent = copilotAgent({ endpoint });
    const command = agent.command(turn);
    expect(JSON.stringify(command.arguments)).not.toContain("sk-secret-value");
    expect(JSON.stringify(agent.homeFiles?.(turn) ?? [])).not.toContain("sk-secret-value");
  });

  it("resumes by id, and pre-assigns the id of a new session", () => {
    const agent = copilotAgent({ endpoint });
    const id = "0cb916db-26aa-40f2-86b5-1ba81b225fd2";
    expect(agent.command({ ...turn, resume: { id } }).arguments).toContain(`--resume=${id}`);
    expect(agent.command({ ...turn, conversationId: id }).arguments).toContain(`--session-id=${id}`);
  });

  it("lets the turn's model win over the default", () => {
    const args = copilotAgent({ endpoint, model: "a" }).command({ ...turn, model: "b" }).arguments ?? [];
    expect(args.slice(args.indexOf("--model"), args.indexOf("--model") + 2)).toEqual(["--model", "b"]);
  });

  it("refuses fork with code configuration", () => {
    const agent = copilotAgent({ endpoint });
    let thrown: unknown;
    try {
      agent.command({ ...turn, resume: { id: "0cb916db-26aa-40f2-86b5-1ba81b225fd2", fork: true } });
    } catch (error) {
      thrown = error;
    }
    expect(isOutpostError(thrown, "configuration")).toBe(true);
    expect((thrown as Error).message).toMatch(/cannot fork/);
  });

  it.each(["--help", "../../etc", "0cb916db 26aa", "", "a".repeat(65)])("refuses the session id %j", (id) => {
    const agent = copilotAgent({ endpoint });
    expect(() => agent.command({ ...turn, resume: { id } })).toThrow(expect.objectContaining({ code: "configuration" }));
  });

  it("lets caller variables override the defaults", () => {
    const agent = copilotAgent({ endpoint, variables: { COPILOT_PROVIDER_TYPE: "anthropic", EXTRA: "1" } });
    expect(agent.variables).toMatchObject({ COPILOT_PROVIDER_TYPE: "anthropic", EXTRA: "1" });
    expect(Object.isFrozen(agent.variables)).toBe(true);
  });

  it("passes a storage through when given", () => {
    const storage = {
      specificationVersion: "v1" as const,
      name: "copilot",
      locate: async () => {
        throw new Error("unused");
      },
      capture: async () => {
        throw new Error("unused");
      },
      restore: async () => {},
    };
    expect(copilotAgent({ storage }).storage).toBe(storage);
  });
});
