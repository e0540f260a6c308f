import { mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { gitIn, scratchRepository, scriptAgent } from "../src/index.js";

const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));

describe("dispatch locks", () => {
  it("named: a second dispatch on a branch in use is refused (code conflict); the first finishes and keeps its worktree intact", async () => {
    const repository = scratchRepository();
    const branch = { mode: "named", name: "shared" } as const;
    let started!: () => void;
    const running = new Promise<void>((done) => {
      started = done;
    });
    const first = dispatch({
      agent: scriptAgent({ directory: join(agentDirectory, "first"), behaviour: { FILE: "first.txt", DELAY_MS: "6000" } }),
      brief: "first",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch,
      observe: ({ event }) => {
        if (event.type === "conversation") started();
      },
    });
    await running;
    const second = await dispatch({
      agent: scriptAgent({ directory: join(agentDirectory, "second"), behaviour: { FILE: "second.txt" } }),
      brief: "second",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(second).toMatchObject({ code: "conflict" });
    expect((second as Error).message).toContain('Branch "shared" is in use by another dispatch');
    const result = await first;
    expect(result.commits).toHaveLength(1);
    expect(gitIn(repository, "log", "--format=%s", "shared")).toContain("script agent: first.txt");
    // Free again once the first one ended.
    const third = await dispatch({
      agent: scriptAgent({ directory: join(agentDirectory, "third"), behaviour: { FILE: "third.txt" } }),
      brief: "third",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch,
    });
    expect(third.commits).toHaveLength(1);
  });

  it("a stale .git/index.lock that blocks the integration is named as such, and the work is kept on its branch", async () => {
    const repository = scratchRepository();
    const lock = join(repository, ".git", "index.lock");
    writeFileSync(lock, "");
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(lock, old, old);
    const error = await dispatch({
      agent: scriptAgent({ directory: join(agentDirectory, "stale"), behaviour: { FILE: "stale.txt" } }),
      brief: "work",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      branch: { mode: "integrate" },
    }).then(
      () => undefined,
      (caught: unknown) => caught as Error & { code: string; details: { recovery: { branch: string; commits: string[] } } },
    );
    expect(error?.code).toBe("conflict");
    expect(error?.message).toContain(`a stale ${lock}`);
    expect(error?.message).toContain("delete it");
    expect(gitIn(repository, "rev-parse", error!.details.recovery.branch)).toBe(error!.details.recovery.commits[0]);
  }, 60_000);
});
