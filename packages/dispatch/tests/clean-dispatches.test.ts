import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { cleanDispatches, listDispatches } from "../src/index.js";
import { currentProcess, identityOf } from "@outpost/plugin-utils";

const scratches: string[] = [];
function scratch(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  scratches.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of scratches.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function repository(): string {
  const root = scratch("outpost-clean-repo-");
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@t.invalid", ...args], { cwd: root });
  git("init", "--quiet", "--initial-branch=main");
  writeFileSync(join(root, "README.md"), "x\n");
  git("add", "README.md");
  git("commit", "--quiet", "-m", "initial");
  return root;
}

function writeRecord(root: string, record: Record<string, unknown>): string {
  const id = randomUUID();
  const directory = join(root, ".outpost", "storage", "activity");
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, `${id}.json`),
    JSON.stringify({
      dispatchId: id,
      agent: "a",
      provider: "local",
      repository: root,
      directory: root,
      pid: 1,
      startedAt: "",
      state: "running",
      ...record,
    }),
  );
  return id;
}

async function deadRunner() {
  const child = spawn("sleep", ["30"]);
  await new Promise((done) => child.once("spawn", done));
  const identity = identityOf(child.pid!)!;
  child.kill("SIGKILL");
  await new Promise((done) => child.once("exit", done));
  return identity;
}

describe("cleanDispatches", () => {
  it("never touches a running dispatch", async () => {
    const root = repository();
    const staging = mkdtempSync(join(tmpdir(), "outpost-staging-"));
    scratches.push(staging);
    const id = writeRecord(root, { runner: currentProcess(), staging });
    expect((await listDispatches({ repository: root }))[0]).toMatchObject({ status: "running" });
    const report = await cleanDispatches({ repository: root });
    expect(report.skipped).toEqual([{ dispatchId: id, status: "running", reason: "it is running" }]);
    expect(existsSync(staging)).toBe(true);
  });

  it("a hostile record cannot make it remove anything a dispatch did not create", async () => {
    const root = repository();
    const victim = scratch("outpost-victim-");
    const outside = scratch("outpost-outside-");
    // A link with the right name pointing elsewhere, a path with the wrong name, a directory outside .outpost/workspaces.
    const link = join(tmpdir(), `outpost-staging-${Math.random().toString(36).slice(2, 8).padEnd(6, "x")}`);
    symlinkSync(victim, link);
    scratches.push(link);
    writeRecord(root, {
      runner: await deadRunner(),
      staging: link,
      home: victim,
      directory: outside,
      worktreeCreated: true,
      branch: "main",
      branchCreated: true,
    });
    const report = await cleanDispatches({ repository: root });
    expect(report.cleaned).toHaveLength(1);
    expect(existsSync(victim) && existsSync(outside) && existsSync(link)).toBe(true);
    // main holds commits no other branch has: kept, not deleted.
    expect(report.cleaned[0]!.kept?.commits).toHaveLength(1);
    expect(execFileSync("git", ["branch", "--list", "main"], { cwd: root, encoding: "utf8" })).toContain("main");
  });
  it("hands the provider's remover only a sandbox id a lease could have recorded, never an option or a path", async () => {
    const root = repository();
    const removed: Array<[string, string]> = [];
    const removeContainer = async (id: string, provider: string) => void removed.push([id, provider]);
    for (const sandbox of ["--force", "../../etc", "a b", "", "x".repeat(200)])
      writeRecord(root, { runner: await deadRunner(), provider: "vercel", sandbox });
    const sane = writeRecord(root, { runner: await deadRunner(), provider: "vercel", sandbox: "sbx_Outpost-1.a" });
    const legacy = writeRecord(root, { runner: await deadRunner(), provider: "docker", container: "ab".repeat(32) });
    const report = await cleanDispatches({ repository: root, removeContainer });
    expect(removed.sort()).toEqual([
      ["ab".repeat(32), "docker"],
      ["sbx_Outpost-1.a", "vercel"],
    ]);
    const actions = Object.fromEntries(report.cleaned.map((entry) => [entry.dispatchId, entry.actions]));
    expect(actions[sane]).toContain("remove vercel sandbox sbx_Outpost-");
    expect(actions[legacy]).toContain(`remove docker sandbox ${"ab".repeat(6)}`);
  });

  it("never removes a sandbox that may hold a dead run's commits unless its work came back or --discard says so", async () => {
    const root = repository();
    const baseline = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    const inTurns = { provider: "vercel", sandbox: "sbx_work", phase: "turns", branch: "outpost/x", baseline, mode: "integrate" };
    const removed: string[] = [];
    const removeContainer = async (id: string) => void removed.push(id);
    const asked: Array<string | undefined> = [];
    // The provider cannot reopen sandboxes: left in place, listed as kept, the remover never called.
    const cannot = writeRecord(root, { runner: await deadRunner(), ...inTurns, sandboxRoot: "/vercel/../etc" });
    const dry = await cleanDispatches({ repository: root, removeContainer, dryRun: true, reopenSandbox: async () => undefined });
    expect(dry.cleaned[0]!.actions.slice(0, 2)).toEqual([
      "bring back the work still in vercel sandbox sbx_work",
      "remove vercel sandbox sbx_work",
    ]);
    const report = await cleanDispatches({
      repository: root,
      removeContainer,
      reopenSandbox: async (_id, _provider, sandboxRoot) => void asked.push(sandboxRoot),
    });
    expect(asked).toEqual([undefined]);
    expect(removed).toEqual([]);
    expect(report.cleaned[0]!.kept).toMatchObject({
      sandbox: "sbx_work",
      reason: expect.stringMatching(/cannot reopen sandboxes/) as unknown,
    });
    // Still a dead run's: the next clean tries again; a reopener that fails leaves it too.
    const [listed] = await listDispatches({ repository: root });
    expect(listed).toMatchObject({ status: "dead", sandboxCommits: "unknown", record: { dispatchId: cannot, sandbox: "sbx_work" } });
    const failing = await cleanDispatches({
      repository: root,
      removeContainer,
      reopenSandbox: () => Promise.reject(new Error("engine down")),
    });
    expect(failing.cleaned[0]!.kept?.reason).toMatch(/could not be reopened \(engine down\)/);
    expect(removed).toEqual([]);
    // Discarded: removed, without reopening it.
    const discarded = await cleanDispatches({
      repository: root,
      removeContainer,
      discard: true,
      reopenSandbox: () => Promise.reject(new Error("not asked")),
    });
    expect(discarded.cleaned[0]!.actions).toContain("discard the work still in vercel sandbox sbx_work and remove it");
    expect(removed).toEqual(["sbx_work"]);
    expect(await listDispatches({ repository: root })).toEqual([]);
    // Killed before the agent ran (sandbox phase): nothing to bring back, removed at once.
    writeRecord(root, { runner: await deadRunner(), ...inTurns, phase: "sandbox", sandbox: "sbx_idle" });
    await cleanDispatches({ repository: root, removeContainer, reopenSandbox: () => Promise.reject(new Error("not asked")) });
    expect(removed).toEqual(["sbx_work", "sbx_idle"]);
  });
});
