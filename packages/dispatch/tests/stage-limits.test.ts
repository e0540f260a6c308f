import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { localProvider } from "@outpost/provider-local";
import { afterAll, describe, expect, it } from "vitest";
import { dispatch } from "../src/index.js";
import { acquireFileLock } from "../src/workspace/file-lock.js";
import { lockPath } from "../src/workspace/outpost-directory.js";
import { echoAgent, scratchRepository } from "./support/scratch-repository.js";

const repositories: string[] = [];
afterAll(() => {
  for (const repository of repositories) rmSync(repository, { recursive: true, force: true });
});
const fresh = () => {
  const repository = scratchRepository("outpost-stage-limits-");
  repositories.push(repository);
  return repository;
};
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("the dispatch succeeded");
    },
    (error: unknown) => error as { code: string; message: string; details: Record<string, unknown> },
  );

describe("limits: each bounded stage fails past its limit", () => {
  it("mergeMs: an integration that cannot finish in time is a conflict, and the target never moves", async () => {
    const repository = fresh();
    const main = execFileSync("git", ["-C", repository, "rev-parse", "main"], { encoding: "utf8" }).trim();
    // Another integration holds the repository's integrate lock for longer than the limit.
    const held = await acquireFileLock(lockPath(repository, "integrate"));
    try {
      const error = await failure(
        dispatch({
          agent: echoAgent(),
          brief: "x",
          until: [],
          repository,
          sandboxProvider: localProvider({ home: "private" }),
          branch: { mode: "integrate" },
          limits: { mergeMs: 300 },
        }),
      );
      expect(error.code).toBe("conflict");
      expect(error.message).toContain("limits.mergeMs (300 ms)");
      expect(error.details).toMatchObject({ limit: "mergeMs", recovery: { phase: "integrate" } });
    } finally {
      await held.release();
    }
    expect(execFileSync("git", ["-C", repository, "rev-parse", "main"], { encoding: "utf8" }).trim()).toBe(main);
  });

  it("copyMs: copies that take longer than the limit fail with timeout, and the new worktree is discarded", async () => {
    const repository = fresh();
    mkdirSync(join(repository, "fixtures"));
    for (let index = 0; index < 3000; index += 1) writeFileSync(join(repository, "fixtures", `file-${index}.txt`), `${index}\n`);
    const error = await failure(
      dispatch({
        agent: echoAgent(),
        brief: "x",
        until: [],
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
        copies: ["fixtures"],
        limits: { copyMs: 1 },
      }),
    );
    expect(error.code).toBe("timeout");
    expect(error.message).toContain("limits.copyMs");
    expect(
      existsSync(join(repository, ".outpost", "workspaces"))
        ? execFileSync("ls", [join(repository, ".outpost", "workspaces")]).toString()
        : "",
    ).toBe("");
  });
});
