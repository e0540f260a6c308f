import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "@outpost/cli";
import { startModelServer } from "@outpost/testkit/model-server";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { demoScript } from "../src/demo/demo-script.js";

const require = createRequire(import.meta.url);
const manifest = require.resolve("@anthropic-ai/claude-code/package.json");
const claudeBinary = join(dirname(manifest), (require(manifest) as { bin: { claude: string } }).bin.claude);
const saved = { ...process.env };
afterEach(() => {
  for (const name of ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "OUTPOST_CLAUDE_EXECUTABLE"]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

async function outpost(args: string[]): Promise<{ status: number; lines: Array<Record<string, unknown>>; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const status = await main(["node", "outpost", ...args], { stdout, stderr });
  return {
    status,
    lines: out
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>),
    stderr: err,
  };
}

describe("outpost run with the real Claude Code CLI (in-process CLI, scripted model server)", () => {
  it("runs, integrates the commit, and --continue continues the same conversation", async () => {
    const server = await startModelServer({ script: demoScript() });
    try {
      process.env.ANTHROPIC_API_KEY = "sk-ant-test";
      const repository = scratchRepository();
      const home = mkdtempSync(join(tmpdir(), "outpost-cli-conversations-"));
      const common = [
        "--agent",
        "claude",
        "--provider",
        "local",
        "--base-url",
        server.url,
        "--executable",
        claudeBinary,
        "--repository",
        repository,
        "--conversation-home",
        home,
        "--json",
      ];
      const first = await outpost(["run", ...common, "--branch", "integrate", "Create hello.txt and commit it."]);
      expect(first.status, first.stderr).toBe(0);
      const result = first.lines.at(-1)!;
      expect(result).toMatchObject({ type: "result", completed: true, branch: "main" });
      expect(gitIn(repository, "log", "-1", "--format=%s")).toBe("Add hello.txt");
      const toolCalls = first.lines.filter((line) => line.type === "event" && (line.event as { type: string }).type === "tool-call");
      expect(toolCalls.map((line) => (line.event as { name: string }).name)).toEqual(["Write", "Bash"]);

      const second = await outpost(["run", ...common, "--continue", String(result.conversationId), "TURN2: what did you do?"]);
      expect(second.status, second.stderr).toBe(0);
      expect(second.lines.at(-1)).toMatchObject({ type: "result", conversationId: result.conversationId });
      expect(String(second.lines.at(-1)!.text)).toContain("history_has_turn1=true");
    } finally {
      await server.close();
    }
  }, 120_000);

  const gate = dockerGate();
  (gate.unavailable ? it.skip : it)(
    `on Docker: --provider docker runs Claude in a container and continues there${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
    async () => {
      const server = await startModelServer({ script: demoScript() });
      try {
        process.env.ANTHROPIC_API_KEY = "sk-ant-test";
        const repository = scratchRepository();
        const home = mkdtempSync(join(tmpdir(), "outpost-cli-conversations-"));
        const common = [
          "--agent",
          "claude",
          "--provider",
          "docker",
          "--image",
          DOCKER_TEST_IMAGE,
          "--network",
          "host",
          "--volume",
          `${dirname(manifest)}:${dirname(manifest)}:ro`,
          "--executable",
          claudeBinary,
          "--base-url",
          server.url,
          "--repository",
          repository,
          "--conversation-home",
          home,
          "--json",
        ];
        const first = await outpost(["run", ...common, "--branch", "integrate", "Create hello.txt and commit it."]);
        expect(first.status, first.stderr).toBe(0);
        expect(first.lines.at(-1)).toMatchObject({ type: "result", completed: true, branch: "main" });
        expect(gitIn(repository, "log", "-1", "--format=%s")).toBe("Add hello.txt");
        const second = await outpost([
          "run",
          ...common,
          "--continue",
          String(first.lines.at(-1)!.conversationId),
          "TURN2: what did you do?",
        ]);
        expect(second.status, second.stderr).toBe(0);
        expect(String(second.lines.at(-1)!.text)).toContain("history_has_turn1=true");
      } finally {
        await server.close();
      }
    },
    180_000,
  );
});
