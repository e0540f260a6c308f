import { isOutpostError } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { GEMINI_BOOTSTRAP_PACKAGE, GEMINI_CLI_VERSION, geminiAgent, geminiSettings } from "../src/index.js";

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

  it("writes the measured settings: API-key auth, updates, statistics, telemetry and folder trust off", () => {
    const file = geminiSettings({ maxAttempts: 50 });
    expect(file.path).toBe(".gemini/settings.json");
    expect(JSON.parse(file.content)).toEqual({
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 10 },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
    });
    expect(JSON.parse(geminiSettings().content).general).not.toHaveProperty("maxAttempts");
  });
});
