import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "@outpost/cli";
import { startModelServer } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";

// Other agents through the same command line: the CLI composes each plugin with its conversation store.
const bin = resolve(dirname(fileURLToPath(import.meta.url)), "../../../node_modules/.bin");
const saved = process.env.OUTPOST_API_KEY;
afterEach(() => {
  if (saved === undefined) delete process.env.OUTPOST_API_KEY;
  else process.env.OUTPOST_API_KEY = saved;
});

async function outpost(args: string[]): Promise<{ status: number; result: Record<string, unknown>; stderr: string }> {
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
  const last = out.trim().split("\n").pop() ?? "{}";
  return { status, result: JSON.parse(last) as Record<string, unknown>, stderr: err + out.slice(-2000) };
}

const AGENTS = [
  { name: "codex", model: "gpt-5.5", path: "/v1" },
  { name: "gemini", model: "gemini-2.5-flash", path: "" },
] as const;

describe.each(AGENTS)("outpost run --agent $name (real CLI, scripted model server)", ({ name, model, path }) => {
  it("writes the file, then --continue in a fresh sandbox sees the first turn", async () => {
    const server = await startModelServer();
    try {
      process.env.OUTPOST_API_KEY = "outpost-test-key";
      const repository = scratchRepository();
      const home = mkdtempSync(join(tmpdir(), `outpost-cli-${name}-`));
      const common = [
        "--agent",
        name,
        "--model",
        model,
        "--provider",
        "local",
        "--base-url",
        `${server.url}${path}`,
        "--executable",
        join(bin, name),
        "--repository",
        repository,
        "--conversation-home",
        home,
        "--json",
        "--until",
        "MARKER_TURN1_DONE",
        "--until",
        "MARKER_TURN2_DONE",
      ];
      const first = await outpost(["run", ...common, "Create hello.txt containing hi"]);
      expect(first.status, first.stderr).toBe(0);
      expect(readFileSync(join(repository, "hello.txt"), "utf8")).toBe("hi");
      const id = String(first.result.conversationId);
      const second = await outpost(["run", ...common, "--continue", id, "TURN2: what did you do?"]);
      expect(second.status, second.stderr).toBe(0);
      expect(second.result.conversationId).toBe(id);
      expect(String(second.result.text)).toContain("history_has_turn1=true");
    } finally {
      await server.close();
    }
  }, 120_000);
});
