import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaytonaDouble, type DaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { startVercelDouble, type VercelDouble } from "@outpost/cloud-doubles/vercel";
import { gitIn, scratchRepository } from "../src/index.js";
import { startOutpost } from "./support/cli-process.js";
import { daytonaEnvironment, onlyCloud, vercelEnvironment } from "./support/cloud-environment.js";
import { firstTextDispatchId, startDispatchRunner } from "./support/dispatch-runner-process.js";

// A dispatch in a cloud sandbox whose process is killed with SIGKILL leaves the sandbox running on the platform.
// Its activity record names it (the lease's sandboxId); `outpost clean` leases it again (the provider's `sandbox`
// option), brings the agent's commit back onto the run's branch, then deletes it through the provider's descriptor,
// with the credentials of the environment. The platforms are the API doubles, reached by URL.

let vercel: VercelDouble;
let daytona: DaytonaDouble;
beforeAll(async () => {
  [vercel, daytona] = await Promise.all([startVercelDouble(), startDaytonaDouble()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([vercel?.close(), daytona?.close()]);
});

function outpost(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = startOutpost(args, cwd, env);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  return new Promise((done) => child.once("close", (status) => done({ status, stdout, stderr })));
}

const platforms = [
  {
    name: "vercel",
    cloud: () => vercelEnvironment(vercel),
    sandboxes: () => vercel.sandboxes(),
  },
  {
    name: "daytona",
    cloud: () => daytonaEnvironment(daytona),
    sandboxes: () => daytona.sandboxes(),
  },
] as const;

describe("a cloud dispatch killed with SIGKILL, then outpost clean", () => {
  for (const platform of platforms) {
    it(`${platform.name}: the commit comes back from the sandbox left on the platform, which is then deleted through the provider's descriptor`, async () => {
      const repository = scratchRepository();
      const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
      const env = onlyCloud(platform.cloud());
      const before = platform.sandboxes();
      const runner = startDispatchRunner(repository, agentDirectory, platform.name, env);
      const dispatchId = await firstTextDispatchId(runner);
      const running = JSON.parse((await outpost(["ps", "--json"], repository, env)).stdout.trim()) as {
        dispatchId: string;
        sandbox?: string;
      };
      expect(running.dispatchId).toBe(dispatchId);
      const left = platform.sandboxes().filter((id) => !before.includes(id));
      expect(left).toHaveLength(1);
      expect(running.sandbox).toBe(left[0]);

      runner.kill("SIGKILL");
      await new Promise((done) => runner.once("exit", done));
      // Nothing released it: the platform still holds the sandbox.
      expect(platform.sandboxes()).toContain(left[0]);

      const cleaned = await outpost(["clean", "--json"], repository, env);
      expect(cleaned.status, cleaned.stderr).toBe(0);
      // The agent's commit exists only in the sandbox: it comes back onto the run's branch before the sandbox goes.
      expect(cleaned.stdout).toContain(`brought back 1 commit(s) and 0 uncommitted file(s) from ${platform.name} sandbox`);
      expect(cleaned.stdout).toContain(`remove ${platform.name} sandbox ${left[0]!.slice(0, 12)}`);
      expect(platform.sandboxes()).toEqual(before);
      const record = running as { branch?: string };
      expect(gitIn(repository, "log", "--format=%s", `main..${record.branch!}`)).toBe("script agent: crash.txt");
      // A second clean has nothing more to do; recover merges the commit where the dispatch would have.
      const again = await outpost(["clean", "--json"], repository, env);
      expect(again.status, again.stderr).toBe(0);
      expect((JSON.parse(again.stdout) as { cleaned: Array<{ actions: string[] }> }).cleaned).toMatchObject([{ actions: [] }]);
      const recovered = await outpost(["recover", dispatchId], repository, env);
      expect(recovered.status, recovered.stderr).toBe(0);
      expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("script agent: crash.txt");
      expect((await outpost(["ps"], repository, env)).stdout).toContain("No dispatches");
    }, 180_000);
  }
});

describe("a Vercel dispatch killed with SIGKILL after leaving a file uncommitted, then outpost clean", () => {
  it("the file comes back into the run's worktree, which is kept with it; the sandbox is deleted", async () => {
    const repository = scratchRepository();
    const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
    const env = onlyCloud(vercelEnvironment(vercel));
    const runner = startDispatchRunner(repository, agentDirectory, "vercel", { ...env, OUTPOST_RUNNER_SHELL: "echo draft > notes.txt" });
    const dispatchId = await firstTextDispatchId(runner);
    const running = JSON.parse((await outpost(["ps", "--json"], repository, env)).stdout.trim()) as { directory: string; sandbox: string };
    runner.kill("SIGKILL");
    await new Promise((done) => runner.once("exit", done));
    const cleaned = await outpost(["clean"], repository, env);
    expect(cleaned.status, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain("brought back 1 commit(s) and 1 uncommitted file(s) from vercel sandbox");
    expect(cleaned.stdout).toContain(`kept: its worktree has uncommitted changes (${running.directory})`);
    expect(readFileSync(join(running.directory, "notes.txt"), "utf8")).toBe("draft\n");
    expect(vercel.sandboxes()).not.toContain(running.sandbox);
    expect((await outpost(["ps", "--json"], repository, env)).stdout).toContain(dispatchId);
  }, 180_000);
});
