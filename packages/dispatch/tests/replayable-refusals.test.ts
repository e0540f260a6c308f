import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { localProvider } from "@outpost/provider-local";
import type { AgentAdapter, AgentEvent } from "@outpost/core";
import { afterAll, describe, expect, it } from "vitest";
import { dispatch } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

const repositories: string[] = [];
afterAll(() => {
  for (const repository of repositories) rmSync(repository, { recursive: true, force: true });
});

// Commits `content` in a file, then finishes.
function committer(content: string): AgentAdapter {
  const program = [
    "const { execFileSync } = require('node:child_process');",
    "require('node:fs').writeFileSync('work.txt', process.argv[1]);",
    "execFileSync('git', ['add', 'work.txt']);",
    "execFileSync('git', ['-c', 'user.name=A', '-c', 'user.email=a@a.invalid', 'commit', '-qm', 'work']);",
    "process.stdout.write(JSON.stringify({ type: 'finished', text: 'done' }) + '\\n');",
  ].join(" ");
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "committer",
    executable: process.execPath,
    command: () => ({ executable: process.execPath, arguments: ["-e", program, content], variables: {} }),
    createDecoder: () => ({ decode: (line) => [JSON.parse(line) as AgentEvent] }),
  };
}

async function refusal(content: string, extra: Record<string, unknown>, variables?: Record<string, string>) {
  const repository = scratchRepository("outpost-replayable-refusals-");
  repositories.push(repository);
  const main = execFileSync("git", ["-C", repository, "rev-parse", "main"], { encoding: "utf8" }).trim();
  const error = await dispatch({
    agent: committer(content),
    brief: "commit",
    repository,
    sandboxProvider: localProvider({ home: "private", ...(variables ? { variables } : {}) }),
    branch: { mode: "integrate" },
    ...extra,
  }).then(
    () => undefined,
    (caught: unknown) => caught as { code: string; message: string },
  );
  const after = execFileSync("git", ["-C", repository, "rev-parse", "main"], { encoding: "utf8" }).trim();
  return { error, moved: after !== main };
}

describe("a replayable journal refuses, before integration, a commit it could not rebuild or must not hold", () => {
  it("a commit over logging.maxPatchBytes fails with code limit and main does not move", async () => {
    const { error, moved } = await refusal("x".repeat(64 * 1024), { logging: { replayable: true, maxPatchBytes: 4096 } });
    expect(error).toMatchObject({ code: "limit" });
    expect(error!.message).toContain("logging.maxPatchBytes");
    expect(moved).toBe(false);
  });

  it("a commit holding a credential variable's value fails with code replay and main does not move", async () => {
    const secret = "sk-test-0123456789abcdef";
    const { error, moved } = await refusal(`key=${secret}\n`, { logging: { replayable: true } }, { OUTPOST_TEST_API_KEY: secret });
    expect(error).toMatchObject({ code: "replay" });
    expect(error!.message).toContain("credential");
    expect(moved).toBe(false);
  });

  it("the same commits integrate when the journal is not replayable", async () => {
    const { error, moved } = await refusal("x".repeat(64 * 1024), { logging: { maxPatchBytes: 4096 } });
    expect(error).toBeUndefined();
    expect(moved).toBe(true);
  });
});
