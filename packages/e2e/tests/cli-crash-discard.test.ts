import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { startOutpost } from "./support/cli-process.js";
import { firstTextDispatchId, startDispatchRunner } from "./support/dispatch-runner-process.js";

function outpost(
  args: readonly string[],
  cwd: string,
  environment?: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = startOutpost(args, cwd, environment);
  let [stdout, stderr] = ["", ""];
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on("exit", (status) => done({ status, stdout, stderr })));
}

const json = <T>(text: string): T => JSON.parse(text.trim()) as T;

/** Worktrees, branches and the temporary directory (minus tsx's own cache): what a user would compare. */
function snapshot(repository: string) {
  return {
    worktrees: gitIn(repository, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((line) => !line.startsWith("HEAD ")),
    branches: gitIn(repository, "for-each-ref", "--format=%(refname)", "refs/heads").split("\n"),
    temporary: readdirSync(tmpdir())
      .filter((name) => !name.startsWith("tsx-"))
      .sort(),
  };
}

interface Listed {
  readonly dispatchId: string;
  readonly status: string;
  readonly phase?: string;
  readonly sandbox?: string;
  readonly sandboxCommits: number | "unknown";
}

async function crashAndDiscard(provider: "local" | "docker" | "docker-isolated"): Promise<void> {
  const repository = scratchRepository();
  const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
  const before = snapshot(repository);
  const runner = startDispatchRunner(repository, agentDirectory, provider);
  const dispatchId = await firstTextDispatchId(runner);
  runner.kill("SIGKILL");
  await new Promise((done) => runner.once("exit", done));

  // Its true phase, and where its commits are: on the branch (local), in the sandbox's git (mounted), unknown (isolated:
  // a clean brings them back).
  const dead = json<Listed>((await outpost(["ps", "--json"], repository)).stdout);
  expect(dead).toMatchObject({ dispatchId, status: "dead", phase: "turns" });
  expect(dead.sandboxCommits).toBe(provider === "local" ? 0 : provider === "docker" ? 1 : "unknown");

  if (provider === "docker-isolated") {
    // The engine cannot be reached: the sandbox cannot be reopened, so it is left with its commit, never removed.
    const unreachable = { ...process.env, DOCKER_HOST: `unix://${join(agentDirectory, "no-engine.sock")}` };
    const blocked = await outpost(["clean", "--json"], repository, unreachable);
    expect(blocked.status, blocked.stderr).toBe(0);
    const left = json<{ cleaned: Array<{ actions: string[]; kept?: { sandbox?: string; reason: string } }> }>(blocked.stdout);
    expect(left.cleaned[0]?.kept).toMatchObject({ sandbox: dead.sandbox });
    expect(left.cleaned[0]?.kept?.reason).toMatch(/may still hold commits and could not be reopened/);
    expect(left.cleaned[0]?.actions.join("\n")).not.toMatch(/remove docker-isolated sandbox/);
    expect(spawnSync("docker", ["ps", "-aq", "--no-trunc", "--filter", `id=${dead.sandbox}`], { encoding: "utf8" }).stdout.trim()).toBe(
      dead.sandbox,
    );
    expect(json<Listed>((await outpost(["ps", "--json"], repository)).stdout)).toMatchObject({ dispatchId, status: "dead" });
  }
  // A clean keeps the work; a second clean has nothing more to do.
  const first = json<{ cleaned: Array<{ actions: string[]; kept?: unknown }> }>((await outpost(["clean", "--json"], repository)).stdout);
  expect(first.cleaned[0]?.kept).toBeDefined();
  // An isolated sandbox's commit was brought back onto the branch before the sandbox went.
  if (provider === "docker-isolated")
    expect(first.cleaned[0]?.actions.join("\n")).toMatch(
      /brought back 1 commit\(s\) .* from docker-isolated sandbox[^]*remove docker-isolated sandbox/,
    );
  const second = json<{ cleaned: Array<{ actions: string[]; kept?: unknown }> }>((await outpost(["clean", "--json"], repository)).stdout);
  expect(second.cleaned).toMatchObject([{ actions: [] }]);
  expect(second.cleaned[0]?.kept).toBeDefined();
  const kept = json<Listed>((await outpost(["ps", "--json"], repository)).stdout);
  expect(kept).toMatchObject({ dispatchId, status: "kept", phase: "turns" });
  expect(kept.sandbox).toBeUndefined();
  if (dead.sandbox)
    expect(spawnSync("docker", ["ps", "-aq", "--no-trunc", "--filter", `id=${dead.sandbox}`], { encoding: "utf8" }).stdout.trim()).toBe("");

  // Discarding asks first: without a terminal and without --yes it is refused and nothing changes.
  const unasked = await outpost(["clean", "--discard", dispatchId], repository);
  expect(unasked.status).not.toBe(0);
  expect(unasked.stderr).toMatch(/configuration: --discard would drop work for good \(discard branch .*\)\. .*pass --yes/);
  expect((await outpost(["ps", "--json"], repository)).stdout).toContain(dispatchId);

  const discarded = await outpost(["recover", "--discard", "--yes", dispatchId.slice(0, 8)], repository);
  expect(discarded.status, discarded.stderr).toBe(0);
  expect(discarded.stdout).toMatch(/discard branch .* unmerged commit/);
  expect((await outpost(["ps"], repository)).stdout).toContain("No dispatches");
  expect(snapshot(repository)).toEqual(before);
  expect((await outpost(["clean"], repository)).stdout).toContain("Nothing to clean.");
}

/** Killed while a hook of `phase` runs: `ps` says that phase; nothing is worth keeping, so one clean removes all. */
async function crashInHook(
  provider: "local" | "docker" | "docker-isolated",
  hook: "workspaceReady" | "sandboxReady",
  phase: string,
): Promise<void> {
  const repository = scratchRepository();
  const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
  const before = snapshot(repository);
  const runner = startDispatchRunner(repository, agentDirectory, provider, { ...process.env, OUTPOST_RUNNER_HANG: hook });
  // In the hook: the phase's own record update (the worktree, or the sandbox) has landed before it runs.
  // (The worktree is on record before `git worktree add`; its baseline only once it is made.)
  const inHook = (entry?: Listed & { worktreeCreated?: boolean; baseline?: string; home?: string }) =>
    entry?.phase === phase &&
    (phase === "workspace" ? entry.worktreeCreated === true && entry.baseline !== undefined : (entry.sandbox ?? entry.home) !== undefined);
  let listed: (Listed & { worktreeCreated?: boolean; baseline?: string; home?: string }) | undefined;
  for (let tries = 0; !inHook(listed) && tries < 240; tries += 1) {
    const output = (await outpost(["ps", "--json"], repository)).stdout.trim();
    listed = output ? json<Listed>(output) : undefined;
    if (!inHook(listed)) await new Promise((done) => setTimeout(done, 250));
  }
  expect(listed).toMatchObject({ status: "running", phase });
  runner.kill("SIGKILL");
  await new Promise((done) => runner.once("exit", done));
  expect(json<Listed>((await outpost(["ps", "--json"], repository)).stdout)).toMatchObject({ status: "dead", phase, sandboxCommits: 0 });
  const cleaned = await outpost(["clean"], repository);
  expect(cleaned.status, cleaned.stderr).toBe(0);
  expect(cleaned.stdout).not.toContain("kept:");
  // The hook's process carried the dispatch's id: the clean found it and stopped it.
  expect(cleaned.stdout).toMatch(/stop \d+ orphaned agent process\(es\)|remove docker\S* sandbox/);
  expect((await outpost(["clean"], repository)).stdout).toContain("Nothing to clean.");
  expect((await outpost(["ps"], repository)).stdout).toContain("No dispatches");
  expect(snapshot(repository)).toEqual(before);
}

/**
 * Killed inside `git worktree add` (the checkout of a file whose smudge filter hangs): the runner and git's own
 * process group die at once. The worktree and branch it half made are on record: `ps` lists the dead dispatch in
 * its workspace phase, and one clean removes both (the agent never worked there).
 */
async function crashInWorktreeAdd(): Promise<void> {
  const repository = scratchRepository();
  const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
  const marker = join(agentDirectory, "checkout-group");
  writeFileSync(join(repository, ".gitattributes"), "slow.txt filter=slow\n");
  writeFileSync(join(repository, "slow.txt"), "slow\n");
  gitIn(repository, "add", ".gitattributes", "slow.txt");
  gitIn(repository, "commit", "--quiet", "-m", "a file whose checkout hangs");
  // The user's own filter: it says which process group runs the checkout, then never ends.
  gitIn(repository, "config", "filter.slow.smudge", `sh -c 'ps -o pgid= $$ > ${marker}.part && mv ${marker}.part ${marker}; sleep 600'`);
  const before = snapshot(repository);
  const runner = startDispatchRunner(repository, agentDirectory, "local");
  let group = "";
  for (let tries = 0; group === "" && tries < 240; tries += 1) {
    group = existsSync(marker) ? readFileSync(marker, "utf8").trim() : "";
    if (group === "") await new Promise((done) => setTimeout(done, 250));
  }
  expect(group).toMatch(/^\d+$/);
  runner.kill("SIGKILL");
  process.kill(-Number(group), "SIGKILL");
  await new Promise((done) => runner.once("exit", done));
  const dead = json<Listed & { directory: string; branch: string; worktreeCreated?: boolean }>(
    (await outpost(["ps", "--json"], repository)).stdout,
  );
  expect(dead).toMatchObject({ status: "dead", phase: "workspace", worktreeCreated: true });
  // Half made: registered with git, and its branch exists.
  expect(snapshot(repository)).not.toEqual(before);
  expect(gitIn(repository, "worktree", "list")).toContain(dead.directory);
  const cleaned = await outpost(["clean"], repository);
  expect(cleaned.status, cleaned.stderr).toBe(0);
  expect(cleaned.stdout).toContain(`remove worktree ${dead.directory} (made before the agent ran)`);
  expect(cleaned.stdout).toContain(`delete branch ${dead.branch}`);
  expect(cleaned.stdout).not.toContain("kept:");
  expect((await outpost(["clean"], repository)).stdout).toContain("Nothing to clean.");
  expect(snapshot(repository)).toEqual(before);
}

/**
 * Killed while it waits for the storage lock (held by a live process), before any worktree: its staging folder is
 * on record already, so `ps` lists it and one clean removes it.
 */
async function crashWaitingForStorage(): Promise<void> {
  const repository = scratchRepository();
  const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
  const before = snapshot(repository);
  const locks = join(repository, ".outpost", "locks");
  mkdirSync(locks, { recursive: true });
  // The lock of a holder that is alive (this process) and never renews it: the dispatch waits.
  writeFileSync(
    join(locks, "storage.lock"),
    JSON.stringify({ owner: { pid: process.pid, host: hostname() }, token: "held by the test", acquiredAt: new Date().toISOString() }),
  );
  const runner = startDispatchRunner(repository, agentDirectory, "local", { ...process.env, OUTPOST_RUNNER_QUOTA: "1" });
  let listed: (Listed & { staging?: string }) | undefined;
  for (let tries = 0; listed?.staging === undefined && tries < 240; tries += 1) {
    const output = (await outpost(["ps", "--json"], repository)).stdout.trim();
    listed = output ? json<Listed & { staging?: string }>(output) : undefined;
    if (listed?.staging === undefined) await new Promise((done) => setTimeout(done, 250));
  }
  expect(listed).toMatchObject({ status: "running", phase: "prepare" });
  runner.kill("SIGKILL");
  await new Promise((done) => runner.once("exit", done));
  rmSync(join(locks, "storage.lock"));
  expect(existsSync(listed!.staging!)).toBe(true);
  expect(json<Listed>((await outpost(["ps", "--json"], repository)).stdout)).toMatchObject({ status: "dead", phase: "prepare" });
  const cleaned = await outpost(["clean"], repository);
  expect(cleaned.status, cleaned.stderr).toBe(0);
  expect(cleaned.stdout).toContain(`remove ${listed!.staging!}`);
  expect((await outpost(["ps"], repository)).stdout).toContain("No dispatches");
  expect(snapshot(repository)).toEqual(before);
}

describe("a dispatch killed with SIGKILL mid-turn: ps, clean, clean again, recover --discard", () => {
  it("local, waiting for the storage lock", () => crashWaitingForStorage(), 90_000);
  it("local, inside git worktree add", () => crashInWorktreeAdd(), 90_000);
  it("local", () => crashAndDiscard("local"), 90_000);
  it("local, in the workspace phase (its workspaceReady hook)", () => crashInHook("local", "workspaceReady", "workspace"), 90_000);
  it("local, in the sandbox phase (its sandboxReady hook)", () => crashInHook("local", "sandboxReady", "sandbox"), 90_000);
});

const gate = dockerGate();
(gate.unavailable ? describe.skip : describe)(
  `a Docker dispatch killed with SIGKILL mid-turn: ps, clean, clean again, recover --discard${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("mounted", () => crashAndDiscard("docker"), 120_000);
    it("isolated", () => crashAndDiscard("docker-isolated"), 120_000);
    it("mounted, in the sandbox phase (its sandboxReady hook)", () => crashInHook("docker", "sandboxReady", "sandbox"), 120_000);
    it(
      "isolated, in the sandbox phase (its sandboxReady hook): the agent never ran, so the container just goes",
      () => crashInHook("docker-isolated", "sandboxReady", "sandbox"),
      120_000,
    );
  },
);
