import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError, type AgentTurn, type SandboxLease, type SandboxProvider } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { scriptAgent } from "@outpost/testkit/script-agent";
import { createSandbox } from "../src/index.js";
import { scratchRepository } from "./support/scratch-repository.js";

// The warm sandbox (page 004) through the public entry: one lease of the local provider kept across two
// dispatches, a resume, a fork and a plain command, one operation at a time, then closed.
const scratch = mkdtempSync(join(tmpdir(), "outpost-create-sandbox-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function countingProvider(): { provider: SandboxProvider; acquired: () => number; released: () => number; leases: SandboxLease[] } {
  const inner = localProvider({ home: "private" });
  let acquired = 0;
  let released = 0;
  const leases: SandboxLease[] = [];
  const provider: SandboxProvider = {
    ...inner,
    acquire: async (context) => {
      acquired++;
      const lease = await inner.acquire(context);
      const release = lease.release.bind(lease);
      leases.push(lease);
      return Object.assign(lease, { release: () => (released++, release()) });
    },
  };
  return { provider, acquired: () => acquired, released: () => released, leases };
}

const writes = (file: string) => scriptAgent({ directory: scratch, behaviour: { FILE: file, CONTENT: file } });
const git = (directory: string, ...args: string[]) => execFileSync("git", ["-C", directory, ...args], { encoding: "utf8" }).trim();

describe("createSandbox()", () => {
  it("keeps one lease across two dispatches, a resume, a fork and a command, and releases it at close", async () => {
    const repository = scratchRepository("outpost-sandbox-");
    const { provider, acquired, released } = countingProvider();
    const base = scriptAgent({ directory: scratch });
    const { forkable: _omitted, ...forking } = base;
    const asked: unknown[] = [];
    const agent = { ...forking, command: (turn: AgentTurn) => (asked.push(turn.resume), base.command(turn)) };
    const sandbox = await createSandbox({
      sandboxProvider: provider,
      repository,
      branch: { mode: "named", name: "warm" },
      agent,
      conversationHome: mkdtempSync(join(scratch, "home-")),
    });
    expect(sandbox.workspace.branch).toBe("warm");
    expect(sandbox.root).toBe(sandbox.workspace.directory);

    const first = await sandbox.dispatch("Write one.txt.", { agent: writes("one.txt") });
    const second = await sandbox.dispatch({ text: "Write two.txt." }, { agent: writes("two.txt") });
    expect([first.commits.length, second.commits.length]).toEqual([1, 1]);
    expect(git(sandbox.workspace.directory, "log", "--format=%s", "-2")).toBe("script agent: two.txt\nscript agent: one.txt");

    const resumed = await sandbox.resume(first.conversationId!, "What did I ask?");
    expect(resumed.conversationId).toBe(first.conversationId);
    expect(resumed.text).toContain('saw 1 earlier prompt(s): ["Write one.txt."]');
    const forked = await sandbox.fork(second.conversationId!, "Branch off.");
    expect(asked.at(-1)).toEqual({ id: second.conversationId, fork: true });
    expect(forked.text).toContain('saw 1 earlier prompt(s): ["Write two.txt."]');
    // A result's own resume() stays in the sandbox.
    const again = await resumed.resume("And then?");
    expect(again.text).toContain("saw 2 earlier prompt(s)");

    const listed = await sandbox.command({ executable: "git", arguments: ["ls-files"] });
    expect(listed.stdout.split("\n")).toEqual(expect.arrayContaining(["one.txt", "two.txt"]));
    const home = (
      await sandbox.command({ executable: process.execPath, arguments: ["-e", "console.log(process.env.HOME)"] })
    ).stdout.trim();
    expect(existsSync(home)).toBe(true);
    expect([acquired(), released()]).toEqual([1, 0]);

    const closed = await sandbox.close();
    expect(closed.preserved).toBe(false);
    expect(released()).toBe(1);
    expect(existsSync(home)).toBe(false);
    expect(await sandbox.close()).toBe(closed);
    const after = await sandbox.dispatch("x").catch((error: unknown) => error);
    expect(isOutpostError(after, "configuration")).toBe(true);
  }, 120_000);

  it("refuses an operation that overlaps another, and close({ preserve }) keeps the sandbox and its worktree", async () => {
    const repository = scratchRepository("outpost-sandbox-busy-");
    const { provider, released, leases } = countingProvider();
    const sandbox = await createSandbox({ sandboxProvider: provider, repository, branch: { mode: "named", name: "kept" } });
    const running = sandbox.dispatch("Write busy.txt.", { agent: writes("busy.txt") });
    for (const overlap of [
      () => sandbox.command({ executable: "true" }),
      () => sandbox.dispatch("x", { agent: writes("x.txt") }),
      () => sandbox.close(),
    ]) {
      const refused = await overlap().catch((error: unknown) => error);
      expect(isOutpostError(refused, "configuration")).toBe(true);
      expect((refused as Error).message).toContain("busy with dispatch()");
    }
    expect((await running).commits).toHaveLength(1);

    const closed = await sandbox.close({ preserve: true });
    expect(closed).toMatchObject({ preserved: true, directory: sandbox.workspace.directory });
    expect(released()).toBe(0);
    expect(readFileSync(join(sandbox.workspace.directory, "busy.txt"), "utf8")).toBe("busy.txt\n");
    expect(sandbox.closed).toBe(true);
    // The preserved sandbox is the caller's to end: its lease is still live.
    await Promise.all(leases.map((lease) => lease.release()));
  }, 120_000);

  it("refuses what it cannot keep: no agent, options the sandbox fixed, current mode on a remote provider", async () => {
    const repository = scratchRepository("outpost-sandbox-refusals-");
    const sandbox = await createSandbox({ sandboxProvider: localProvider({ home: "private" }), repository });
    for (const attempt of [
      () => sandbox.dispatch("no agent"),
      () => sandbox.dispatch("x", { agent: writes("x.txt"), branch: { mode: "current" } } as never),
    ]) {
      const refused = await attempt().catch((error: unknown) => error);
      expect(isOutpostError(refused, "configuration")).toBe(true);
    }
    await sandbox.close();
    // A remote provider cannot honour "current" (page 004): refused before any lease, as dispatch() refuses it.
    let acquired = 0;
    const remote = { ...localProvider(), placement: "remote" as const, acquire: () => (acquired++, Promise.reject(new Error("acquired"))) };
    const refused = await createSandbox({ sandboxProvider: remote, repository, branch: { mode: "current" } }).catch(
      (error: unknown) => error,
    );
    expect(isOutpostError(refused, "configuration")).toBe(true);
    expect(acquired).toBe(0);
  }, 60_000);
});
