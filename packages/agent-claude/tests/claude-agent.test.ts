import { isOutpostError } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { CLAUDE_BOOTSTRAP_PACKAGE, CLAUDE_CLI_VERSION, claudeAgent, claudeSettings } from "../src/index.js";

const turn = { prompt: "Create hello.txt", root: "/work/repo", home: "/home/agent" };
const ID = "0716f583-1b2c-4d5e-8f90-a1b2c3d4e5f6";

describe("claudeAgent", () => {
  const agent = claudeAgent({ baseUrl: "http://127.0.0.1:18181", apiKey: "sk-ant-secret-key", model: "claude-test" });

  it("declares its features", () => {
    expect(agent).toMatchObject({
      kind: "cli",
      specificationVersion: "v1",
      name: "claude",
      executable: "claude",
      bootstrap: "claude",
      cli: { npmPackage: "@anthropic-ai/claude-code", version: CLAUDE_CLI_VERSION },
      requiresFinishedEvent: true,
      usage: "events",
      resumable: true,
      forkable: true,
    });
    expect(CLAUDE_BOOTSTRAP_PACKAGE).toBe("@anthropic-ai/claude-code@2.1.332");
  });

  it("runs `claude -p` unattended with stream-json, the prompt on stdin and the workspace as cwd", () => {
    const command = agent.command(turn);
    expect(command).toMatchObject({ executable: "claude", stdin: "Create hello.txt", directory: "/work/repo" });
    expect(command.arguments).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--dangerously-skip-permissions",
      "--settings",
      claudeSettings({ baseUrl: "http://127.0.0.1:18181", model: "claude-test" }),
      "--model",
      "claude-test",
    ]);
    expect(command.arguments.join(" ")).not.toContain("Create hello.txt");
  });

  it("takes steering as live input: stream-json input, the prompt as the first message, one line per instruction", () => {
    const session = agent.liveInput!.open(turn);
    const live = session.command;
    expect(live.arguments.slice(-2)).toEqual(["--input-format", "stream-json"]);
    expect(live.stdin).toBe(`${JSON.stringify({ type: "user", message: { role: "user", content: "Create hello.txt" } })}\n`);
    const message = session.message('say "bonjour"\nthen stop');
    expect(message.accepted).toBeUndefined();
    const line = message.write;
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({ type: "user", message: { role: "user", content: 'say "bonjour"\nthen stop' } });
  });

  it("resumes, forks and pre-assigns session ids", () => {
    expect(agent.command({ ...turn, model: "other", resume: { id: ID } }).arguments.slice(-4)).toEqual([
      "--model",
      "other",
      "--resume",
      ID,
    ]);
    expect(agent.command({ ...turn, resume: { id: ID, fork: true } }).arguments.slice(-3)).toEqual(["--resume", ID, "--fork-session"]);
    const fresh = "11111111-2222-4333-8444-555555555555";
    expect(agent.command({ ...turn, conversationId: fresh }).arguments.slice(-2)).toEqual(["--session-id", fresh]);
    expect(agent.command({ ...turn, resume: { id: ID, fork: true }, conversationId: fresh }).arguments.slice(-2)).toEqual([
      "--session-id",
      fresh,
    ]);
  });

  it("refuses ids that are not session UUIDs with `configuration` (no option injection)", () => {
    for (const id of ["--help", "../../etc/passwd", "", "0716f583 --x"]) {
      let error: unknown;
      try {
        agent.command({ ...turn, resume: { id } });
      } catch (caught) {
        error = caught;
      }
      expect(isOutpostError(error, "configuration")).toBe(true);
    }
  });

  it("passes credentials as variables only, and writes no file into the home (on a host home they are the user's)", () => {
    const command = agent.command(turn);
    expect(command.variables).toMatchObject({
      ANTHROPIC_API_KEY: "sk-ant-secret-key",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:18181",
      IS_SANDBOX: "1",
    });
    expect(agent.variables).toEqual(command.variables);
    expect(agent.homeFiles?.(turn) ?? []).toEqual([]);
    expect(command.arguments.join(" ")).not.toContain("sk-ant-secret-key");
  });

  it("switches telemetry, error reporting and auto-update off in variables and in the --settings it passes", () => {
    const args = agent.command(turn).arguments;
    const settings = JSON.parse(args[args.indexOf("--settings") + 1] ?? "{}") as { env: Record<string, string> };
    for (const source of [agent.variables ?? {}, settings.env]) {
      expect(source).toMatchObject({
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        DISABLE_AUTOUPDATER: "1",
      });
    }
    expect(settings.env["ANTHROPIC_BASE_URL"]).toBe("http://127.0.0.1:18181");
  });

  it("limits retries when asked, and lets extra variables win", () => {
    const limited = claudeAgent({ maxRetries: 0, variables: { IS_SANDBOX: "0", EXTRA: "x" } });
    expect(limited.variables).toMatchObject({ CLAUDE_CODE_MAX_RETRIES: "0", IS_SANDBOX: "0", EXTRA: "x" });
    expect(limited.variables).not.toHaveProperty("ANTHROPIC_API_KEY");
  });
});
