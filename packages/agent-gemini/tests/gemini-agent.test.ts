import { isOutpostError } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { GEMINI_BOOTSTRAP_PACKAGE, GEMINI_CLI_VERSION, geminiAgent, geminiSettings, GEMINI_SETTINGS_VARIABLE } from "../src/index.js";

const turn = { prompt: "Create hello.txt", root: "/work/repo", home: "/home/agent" };
const ID = "f84c0e78-1b2c-4d5e-8f90-a1b2c3d4e5f6";

function configurationError(run: () => unknown): boolean {
  try {
    run();
  } catch (error) {
    return isOutpostError(error, "configuration");
  }
  return false;
}

describe("geminiAgent", () => {
  const agent = geminiAgent({ baseUrl: "http://127.0.0.1:18181", apiKey: "secret-gemini-key", model: "gemini-2.5-flash" });

  it("declares its features: resumable, not forkable", () => {
    expect(agent).toMatchObject({
      name: "gemini",
      executable: "gemini",
      bootstrap: "gemini",
      cli: { npmPackage: "@google/gemini-cli", version: GEMINI_CLI_VERSION },
      requiresFinishedEvent: true,
      usage: "events",
      resumable: true,
      forkable: false,
    });
    expect(GEMINI_BOOTSTRAP_PACKAGE).toBe("@google/gemini-cli@0.61.0");
  });

  it("runs headless with stream-json and --yolo, the prompt on stdin", () => {
    const command = agent.command(turn);
    expect(command).toMatchObject({ executable: "gemini", stdin: "Create hello.txt", directory: "/work/repo" });
    expect(command.arguments).toEqual(["--output-format", "stream-json", "--yolo", "--model", "gemini-2.5-flash"]);
  });

  it("resumes by session id and pre-assigns ids of new sessions", () => {
    expect(agent.command({ ...turn, resume: { id: ID } }).arguments.slice(-2)).toEqual(["--resume", ID]);
    expect(agent.command({ ...turn, conversationId: ID }).arguments.slice(-2)).toEqual(["--session-id", ID]);
  });

  it("refuses fork and non-UUID ids with `configuration`", () => {
    expect(configurationError(() => agent.command({ ...turn, resume: { id: ID, fork: true } }))).toBe(true);
    expect(configurationError(() => agent.command({ ...turn, resume: { id: "latest" } }))).toBe(true);
    expect(configurationError(() => agent.command({ ...turn, conversationId: "--yolo" }))).toBe(true);
  });

  it("passes endpoint and key as variables, never in settings", () => {
    expect(agent.variables).toEqual({
      GEMINI_CLI_NO_RELAUNCH: "true",
      GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:18181",
      GEMINI_API_KEY: "secret-gemini-key",
    });
    for (const file of agent.homeFiles?.(turn) ?? []) expect(file.content).not.toContain("secret-gemini-key");
  });

  it("on a shared home, points the CLI at its own file through GEMINI_CLI_SYSTEM_SETTINGS_PATH (settings that outrank the user's)", () => {
    const shared = { ...turn, sharedHome: true };
    const [file] = agent.homeFiles?.(shared) ?? [];
    expect(file?.path).not.toBe(".gemini/settings.json");
    expect(agent.command(shared).variables).toMatchObject({ [GEMINI_SETTINGS_VARIABLE]: `${turn.home}/${file?.path}` });
    expect(agent.command(turn).variables).not.toHaveProperty(GEMINI_SETTINGS_VARIABLE);
    expect(agent.homeFiles?.(turn).map((own) => own.path)).toEqual([".gemini/settings.json"]);
  });

  it("writes the measured settings: API-key auth, updates, statistics, telemetry and folder trust off", () => {
    const file = geminiSettings({ maxAttempts: 50 });
    expect(file.path).toBe(".gemini/settings.json");
    // On a shared home (the user's): a file of Outpost's named by its content, never `~/.gemini/settings.json`.
    const shared = geminiSettings({ maxAttempts: 50 }, true);
    expect(shared.path).toMatch(/^\.outpost\/agents\/gemini\/settings-[0-9a-f]{16}\.json$/);
    expect(shared.content).toBe(file.content);
    expect(geminiSettings({ maxAttempts: 2 }, true).path).not.toBe(shared.path);
    expect(JSON.parse(file.content)).toEqual({
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 10 },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
    });
    expect(JSON.parse(geminiSettings().content).general).not.toHaveProperty("maxAttempts");
  });
});
