import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { dispatch } from "../src/index.js";
import { checkGuard } from "../src/guard/check-guard.js";
import { protectedPathMatcher } from "../src/guard/protected-path.js";
import { scratchRepository } from "./support/scratch-repository.js";

const directory = mkdtempSync(join(tmpdir(), "outpost-guard-agent-"));
const repositories: string[] = [];
afterAll(() => {
  for (const path of [directory, ...repositories]) rmSync(path, { recursive: true, force: true });
});
const git = (repository: string, ...args: string[]) => execFileSync("git", ["-C", repository, ...args], { encoding: "utf8" }).trim();
const fresh = () => {
  const repository = scratchRepository("outpost-guard-");
  repositories.push(repository);
  return repository;
};
const failure = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error("the dispatch succeeded");
    },
    (caught: unknown) =>
      caught as {
        code: string;
        message: string;
        details: { guard: unknown; check: string; recovery: { branch: string; commits: string[]; phase: string } };
      },
  );
// A hostile agent's edit: a CI file written and committed besides the file it was asked for.
const ciEdit = "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml && git add .github && git commit -qm ci";

describe("guard patterns", () => {
  it("a plain path covers everything under it; * stays in a segment, ** crosses them", () => {
    expect(protectedPathMatcher(".github")(".github/workflows/ci.yml")).toBe(true);
    expect(protectedPathMatcher(".github")(".githubx")).toBe(false);
    expect(protectedPathMatcher("*.lock")("yarn.lock")).toBe(true);
    expect(protectedPathMatcher("*.lock")("a/yarn.lock")).toBe(false);
    expect(protectedPathMatcher("**/package-lock.json")("package-lock.json")).toBe(true);
    expect(protectedPathMatcher("**/package-lock.json")("packages/a/package-lock.json")).toBe(true);
    expect(protectedPathMatcher("src/**/*.ts")("src/a/b.ts")).toBe(true);
    expect(protectedPathMatcher("src/**/*.ts")("src/a/b.js")).toBe(false);
  });

  it("reports every bound exceeded with code guard", () => {
    const changes = [
      { path: "a.txt", added: 3, deleted: 1 },
      { path: ".outpost/run.json", added: 1, deleted: 0 },
    ];
    expect(() => checkGuard({ maxChangedLines: 5, maxChangedFiles: 2 }, changes, "syncBack")).not.toThrow();
    let caught: unknown;
    try {
      checkGuard({ protectedPaths: [".outpost"], maxChangedLines: 4, maxChangedFiles: 1 }, changes, "integrate");
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: "guard",
      details: {
        check: "integrate",
        guard: {
          protectedPaths: [".outpost/run.json"],
          changedLines: 5,
          changedFiles: 2,
          exceeded: ["protectedPaths", "maxChangedLines", "maxChangedFiles"],
        },
      },
    });
  });
});

describe("dispatch() with guard on the local provider", () => {
  it("a change to a protected path fails with code guard, nothing integrates, and the work stays on its branch", async () => {
    const repository = fresh();
    const before = git(repository, "rev-parse", "main");
    const error = await failure(
      dispatch({
        agent: scriptAgent({ directory, behaviour: { SHELL: ciEdit, FILE: "note.txt" } }),
        brief: "Write note.txt.",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
        guard: { protectedPaths: [".github", "**/*.lock"] },
      }),
    );
    expect(error.code).toBe("guard");
    expect(error.details.guard).toMatchObject({ protectedPaths: [".github/workflows/ci.yml"], exceeded: ["protectedPaths"] });
    expect(error.details.check).toBe("syncBack");
    expect(git(repository, "rev-parse", "main")).toBe(before);
    const recovery = error.details.recovery;
    expect(recovery.phase).toBe("syncBack");
    expect(recovery.commits).toHaveLength(2);
    expect(git(repository, "show", `${recovery.branch}:.github/workflows/ci.yml`)).toBe("on: push");
    expect(git(repository, "show", `${recovery.branch}:note.txt`)).toBe("written by the script agent");
  }, 60_000);

  it("size bounds: more lines or files than allowed fail with code guard; within them the work integrates", async () => {
    const repository = fresh();
    const many = "seq 1 40 > big.txt && git add big.txt && git commit -qm big";
    const over = await failure(
      dispatch({
        agent: scriptAgent({ directory, behaviour: { SHELL: many } }),
        brief: "x",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
        guard: { maxChangedLines: 39 },
      }),
    );
    expect(over.code).toBe("guard");
    expect(over.details.guard).toMatchObject({ changedLines: 40, changedFiles: 1, exceeded: ["maxChangedLines"] });
    // Untracked files count too: two new files left uncommitted past maxChangedFiles 1.
    const files = await failure(
      dispatch({
        agent: scriptAgent({ directory, behaviour: { SHELL: "echo a > u1.txt && echo b > u2.txt" } }),
        brief: "x",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "named", name: "agent/files" },
        guard: { maxChangedFiles: 1 },
      }),
    );
    expect(files.code).toBe("guard");
    expect(files.details.guard).toMatchObject({ changedFiles: 2, changedLines: 2, exceeded: ["maxChangedFiles"] });
    const within = await dispatch({
      agent: scriptAgent({ directory, behaviour: { SHELL: many } }),
      brief: "x",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
      guard: { maxChangedLines: 40, maxChangedFiles: 1, protectedPaths: [".github"] },
    });
    expect(git(repository, "rev-parse", "main")).toBe(within.commits[0]);
  }, 90_000);

  it("a malformed guard is refused before anything runs (code configuration)", async () => {
    const repository = fresh();
    for (const guard of [{ protectedPaths: ["../x"] }, { maxChangedLines: -1 }, { maxChangedFiles: 1.5 }, { protectedPath: [] }])
      await expect(
        dispatch({
          agent: scriptAgent({ directory }),
          brief: "x",
          repository,
          sandboxProvider: localProvider({ home: "private" }),
          guard,
        }),
      ).rejects.toMatchObject({ code: "configuration" });
  }, 30_000);
});
