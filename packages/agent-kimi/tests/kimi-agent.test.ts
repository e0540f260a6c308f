import { isOutpostError } from "@outpost/core";
import type { AgentTurn } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { kimiAgent } from "../src/index.js";

const turn: AgentTurn = { prompt: "Create hello.txt containing hi", root: "/work/repo", home: "/home/agent" };
const endpoint = { baseUrl: "http://127.0.0.1:18181/v1", apiKey: "sk-secret-value" };

describe("kimiAgent", () => {
  it("declares its features: no usage in the stream, resumable, not forkable, no bootstrap package", () => {
    const agent = kimiAgent({ endpoint });
    expect(agent).toMatchObject({
      kind: "cli",
      name: "kimi",
      executable: "kimi",
      requiresFinishedEvent: false,
      usage: "unavailable",
      resumable: true,
      forkable: false,
    });
    expect(agent.bootstrap).toBeUndefined();
  });

  it("captures through the Kimi session-bundle store by default", () => {
    expect(typeof kimiAgent().storage?.capture).toBe("function");
  });

  it("builds the documented non-interactive command", () => {
    const command = kimiAgent().command({ ...turn, model: "kimi-for-coding" });
    expect(command).toMatchObject({ executable: "kimi", directory: "/work/repo" });
    expect(command.arguments).toEqual(["--output-format", "stream-json", "--model", "kimi-for-coding", "--prompt", turn.prompt]);
    expect(command.variables).toEqual({ KIMI_DISABLE_TELEMETRY: "1" });
  });

  it("passes an endpoint and its key through KIMI_MODEL_* variables, never arguments", () => {
    const command = kimiAgent({ endpoint, model: "fake-model" }).command({ ...turn, model: "other-model" });
    expect(command.arguments).toEqual(["--output-format", "stream-json", "--prompt", turn.prompt]);
    expect(command.variables).toEqual({
      KIMI_DISABLE_TELEMETRY: "1",
      KIMI_MODEL_PROVIDER_TYPE: "openai",
      KIMI_MODEL_BASE_URL: "http://127.0.0.1:18181/v1",
      KIMI_MODEL_API_KEY: "sk-secret-value",
      KIMI_MODEL_NAME: "other-model",
    });
  });

  it("resumes with --session and refuses fork with code configuration", () => {
    const agent = kimiAgent();
    expect(agent.command({ ...turn, resume: { id: "01HZABCXYZ" } }).arguments).toEqual([
      "--output-format",
      "stream-json",
      "--session",
      "01HZABCXYZ",
      "--prompt",
      turn.prompt,
    ]);
    let thrown: unknown;
    try {
      agent.command({ ...turn, resume: { id: "01HZABCXYZ", fork: true } });
    } catch (error) {
      thrown = error;
    }
    expect(isOutpostError(thrown, "configuration")).toBe(true);
  });

  it.each(["--yolo", "-x", "../x", "a b", ""])("refuses the session id %j", (id) => {
    expect(() => kimiAgent().command({ ...turn, resume: { id } })).toThrow(expect.objectContaining({ code: "configuration" }));
  });
});
