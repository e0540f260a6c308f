import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { OUTPOST, PROJECT, git, jsonLines, outpost, pathWithClis, scratchRepository } from "./support/installed.js";

// The installed `outpost` bin: plugin listings, doctor, and ps / clean after a run killed mid-turn.
describe("outpost agents, providers, doctor, ps and clean (the installed bin)", () => {
  it("agents and providers list every installed plugin, the third-party ones included", async () => {
    const agents = await outpost(["agents"], { cwd: PROJECT });
    expect(agents.status, agents.stderr).toBe(0);
    for (const name of ["claude", "codex", "copilot", "gemini", "kimi", "opencode"])
      expect(agents.stdout.split("\n")).toContain(`${name}\t@outpost/agent-${name}`);
    expect(agents.stdout.split("\n")).toContain("notes\toutpost-agent-notes");
    const providers = await outpost(["providers"], { cwd: PROJECT });
    for (const name of ["daytona", "docker", "local", "vercel"])
      expect(providers.stdout.split("\n")).toContain(`${name}\t@outpost/provider-${name}`);
    expect(providers.stdout.split("\n")).toContain("hostdir\toutpost-provider-hostdir");
  });

  it("doctor finds each pinned CLI installed in the project, and the providers", async () => {
    const doctor = await outpost(["doctor", "--json"], { cwd: PROJECT, env: { PATH: pathWithClis() } });
    const reports = jsonLines(doctor.stdout);
    const agents = reports.filter((report) => report["type"] === "agent-cli");
    for (const report of agents.filter((entry) => entry["agent"] !== "kimi" && entry["agent"] !== "notes")) {
      expect(report, String(report["agent"])).toMatchObject({ status: "ok", installed: report["pinned"] });
    }
    const providers = reports.filter((report) => report["type"] === "provider").map((report) => report["provider"]);
    expect(providers).toEqual(expect.arrayContaining(["daytona", "docker", "local", "vercel", "hostdir"]));
  });

  it("ps shows a run killed mid-turn as dead; clean stops its agent and removes its worktree", async () => {
    const repository = scratchRepository("outpost-consumer-crash-");
    // --agent-module loads the installed kit's script agent: it commits, then hangs, as a busy agent would.
    const directory = join(PROJECT, ".scratch", "crash-agent");
    mkdirSync(directory, { recursive: true });
    const module = join(mkdtempSync(join(directory, "module-")), "agent.mjs");
    writeFileSync(
      module,
      `import { scriptAgent } from "@outpost/testkit/script-agent";\n` +
        `export function createAgent() { return scriptAgent({ directory: ${JSON.stringify(directory)}, behaviour: { FILE: "kept.txt", MARKER: "never", HANG: "busy" } }); }\n`,
    );
    const child = spawn(
      OUTPOST,
      ["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--branch", "integrate", "work"],
      {
        cwd: repository,
        stdio: "ignore",
      },
    );
    let running: Record<string, unknown> | undefined;
    for (let attempt = 0; attempt < 150 && running?.["status"] !== "running"; attempt++) {
      await sleep(200);
      running = jsonLines((await outpost(["ps", "--json"], { cwd: repository })).stdout)[0];
    }
    expect(running, "ps lists the live run").toMatchObject({ status: "running" });
    await sleep(1_000);
    child.kill("SIGKILL");
    await new Promise((done) => child.once("exit", done));
    const dead = jsonLines((await outpost(["ps", "--json"], { cwd: repository })).stdout)[0];
    expect(dead).toMatchObject({ dispatchId: running!["dispatchId"], status: "dead" });
    const cleaned = await outpost(["clean"], { cwd: repository });
    expect(cleaned.status, cleaned.stderr).toBe(0);
    expect(
      git(repository, "worktree", "list", "--porcelain")
        .split("\n")
        .filter((line) => line.startsWith("worktree ")),
    ).toHaveLength(1);
    const after = jsonLines((await outpost(["ps", "--json"], { cwd: repository })).stdout);
    expect(after.filter((entry) => entry["status"] === "dead" || entry["status"] === "running")).toEqual([]);
  });
});
