import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { main } from "@outpost/cli";
import { conversationResponder, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";

// `outpost run` in its normal (human) output: an unknown CLI version is said without --verbose, and
// --agent-version names the release instead of asking the CLI. The real Claude Code CLI, its --version slowed.
const require = createRequire(import.meta.url);
const manifest = require.resolve("@anthropic-ai/claude-code/package.json");
const claudeBinary = join(dirname(manifest), (require(manifest) as { bin: { claude: string } }).bin.claude);
const saved = { ...process.env };
const UNKNOWN = /claude: the CLI version is unknown \(`.*claude --version` did not answer within 2 s\).*--agent-version/;

async function outpost(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const status = await main(["node", "outpost", ...args], { stdout, stderr });
  return { status, stdout: out, stderr: err };
}

describe("outpost run and the agent CLI's version", () => {
  let server: ModelServer;
  let slow: string;
  beforeAll(async () => {
    server = await startModelServer({ responder: conversationResponder() });
    slow = join(mkdtempSync(join(tmpdir(), "outpost-slow-claude-")), "claude");
    writeFileSync(slow, `#!/bin/sh\nif [ "$1" = "--version" ]; then sleep 30; fi\nexec ${JSON.stringify(claudeBinary)} "$@"\n`);
    chmodSync(slow, 0o755);
  });
  afterAll(async () => server?.close());
  afterEach(() => {
    for (const name of ["ANTHROPIC_API_KEY", "OUTPOST_CLI_PROBE_MS"]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
  const run = (...extra: string[]) =>
    outpost([
      "run",
      "--agent",
      "claude",
      "--provider",
      "local",
      "--base-url",
      server.url,
      "--executable",
      slow,
      "--repository",
      scratchRepository(),
      "--branch",
      "keep",
      "--until",
      "MARKER_TURN1_DONE",
      ...extra,
      "Create hello.txt containing hi",
    ]);

  it("says an unknown version in normal output (no --verbose), and the run goes on", async () => {
    process.env["ANTHROPIC_API_KEY"] = "sk-ant-test";
    process.env["OUTPOST_CLI_PROBE_MS"] = "1500";
    const result = await run();
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toMatch(UNKNOWN);
  }, 120_000);

  it("--agent-version names the release: nothing is asked, nothing to warn about", async () => {
    process.env["ANTHROPIC_API_KEY"] = "sk-ant-test";
    process.env["OUTPOST_CLI_PROBE_MS"] = "1500";
    const result = await run("--agent-version", "2.1.332");
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toMatch(/version is unknown|outside the tested range/);
  }, 120_000);

  it("--agent-version that is not a version is refused before anything runs", async () => {
    const result = await run("--agent-version", "latest");
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/"latest" is not major\.minor\.patch.*--agent-version 1\.2\.3/);
  }, 60_000);
});
