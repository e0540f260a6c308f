import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { eventually, processesInGroup, startOutpost } from "./support/cli-process.js";
import { firstTextDispatchId, startDispatchRunner } from "./support/dispatch-runner-process.js";

function outpost(args: readonly string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = startOutpost(args, cwd);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((done) => child.on("exit", (status) => done({ status, stdout, stderr })));
}

/** What a user would compare: worktrees, branches, the temporary directory (minus tsx's own cache). */
function snapshot(repository: string) {
  return {
    // Which worktrees exist on which branch (their HEAD commits move when work is merged).
    worktrees: gitIn(repository, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((line) => !line.startsWith("HEAD ")),
    branches: gitIn(repository, "for-each-ref", "--format=%(refname)", "refs/heads").split("\n"),
    temporary: readdirSync(tmpdir())
      .filter((name) => !name.startsWith("tsx-"))
      .sort(),
  };
}

async function crashAndClean(providerName: "local" | "docker" | "docker-isolated"): Promise<void> {
  const repository = scratchRepository();
  const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
  const before = snapshot(repository);
  const runner = startDispatchRunner(repository, agentDirectory, providerName);
  const dispatchId = await firstTextDispatchId(runner);

  // While it runs: listed as running, and a clean leaves it alone.
  const running = await outpost(["ps", "--json"], repository);
  expect(JSON.parse(running.stdout.trim())).toMatchObject({ dispatchId, status: "running" });
  const untouched = JSON.parse((await outpost(["clean", "--json"], repository)).stdout) as { skipped: Array<{ dispatchId: string }> };
  expect(untouched.skipped.map((entry) => entry.dispatchId)).toEqual([dispatchId]);
  const record = JSON.parse(running.stdout.trim()) as {
    directory: string;
    branch: string;
    staging: string;
    sandbox?: string;
    agentProcessGroup?: number;
  };
  expect(existsSync(record.staging)).toBe(true);
  if (providerName !== "local") expect(record.sandbox).toMatch(/^[0-9a-f]{64}$/);
  else expect(record.agentProcessGroup).toBeGreaterThan(1);

  runner.kill("SIGKILL");
  await new Promise((done) => runner.once("exit", done));

  const dead = JSON.parse((await outpost(["ps", "--json"], repository)).stdout.trim()) as { status: string; keptCommits: string[] };
  expect(dead).toMatchObject({ status: "dead" });
  // A mounted sandbox commits into its private git directory, an isolated one into its own file system: the clean
  // imports them, or brings them back before removing the container.
  expect(dead.keptCommits).toHaveLength(providerName === "local" ? 1 : 0);
  const dry = await outpost(["clean", "--dry-run"], repository);
  expect(dry.stdout).toContain("would be cleaned");
  expect(existsSync(record.directory)).toBe(true);

  const cleaned = await outpost(["clean"], repository);
  expect(cleaned.status, cleaned.stderr).toBe(0);
  expect(cleaned.stdout).toContain(`recover with: outpost recover ${dispatchId}`);
  const after = snapshot(repository);
  // As before the dispatch, except for the branch holding the agent's commit.
  expect(after.worktrees).toEqual(before.worktrees);
  expect(after.branches).toEqual([...before.branches, `refs/heads/${record.branch}`].sort());
  expect(after.temporary).toEqual(before.temporary);
  if (record.agentProcessGroup) expect(await eventually(() => processesInGroup(record.agentProcessGroup!).length === 0)).toBe(true);
  if (record.sandbox)
    expect(spawnSync("docker", ["ps", "-aq", "--no-trunc", "--filter", `id=${record.sandbox}`], { encoding: "utf8" }).stdout.trim()).toBe(
      "",
    );
  const commit = gitIn(repository, "rev-parse", record.branch);
  expect(gitIn(repository, "log", "--format=%s", `main..${record.branch}`)).toBe("script agent: crash.txt");

  // The kept work comes back where the dispatch would have put it; then nothing is left.
  const recovered = await outpost(["recover", dispatchId.slice(0, 8)], repository);
  expect(recovered.status, recovered.stderr).toBe(0);
  expect(recovered.stdout).toContain(`into main`);
  expect(gitIn(repository, "rev-parse", "main")).toBe(commit);
  expect(snapshot(repository)).toEqual(before);
  expect((await outpost(["ps"], repository)).stdout).toContain("No dispatches");
}

describe("a dispatch killed with SIGKILL, then outpost clean", () => {
  it(
    "local: orphaned agent stopped, worktree and temporary directories removed, the commit kept and recoverable",
    () => crashAndClean("local"),
    90_000,
  );
});

const gate = dockerGate();
(gate.unavailable ? describe.skip : describe)(
  `a Docker dispatch killed with SIGKILL, then outpost clean${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it(`docker (${DOCKER_TEST_IMAGE}): the container is removed too`, () => crashAndClean("docker"), 120_000);
    it(
      `docker isolated (${DOCKER_TEST_IMAGE}): the commit comes back from the container before it is removed`,
      () => crashAndClean("docker-isolated"),
      120_000,
    );
  },
);
