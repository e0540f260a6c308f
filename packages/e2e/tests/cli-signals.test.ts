import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOCKER_TEST_IMAGE, dockerGate, scratchRepository } from "../src/index.js";
import { eventually, processesInGroup, processGroupOf, scriptAgentModule, startOutpost } from "./support/cli-process.js";

interface Ended {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a busy agent through the CLI; once it has answered, `act` is called with the CLI process. */
async function runUntilBusy(
  args: readonly string[],
  repository: string,
  act: (child: ReturnType<typeof startOutpost>) => void,
): Promise<Ended> {
  const child = startOutpost(args, repository);
  let stdout = "";
  let stderr = "";
  let acted = false;
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (!acted && stdout.includes('"type":"text"')) {
      acted = true;
      act(child);
    }
  });
  return new Promise((done) => child.on("exit", (status, signal) => done({ status, signal, stdout, stderr })));
}

function lastJson(stdout: string): { type: string; code: string; details: { recovery: { commits: string[]; directory: string } } } {
  return JSON.parse(stdout.trim().split("\n").pop()!);
}

describe("outpost run ends cleanly however it is stopped", () => {
  for (const [signal, status] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    it(`${signal} stops the agent's whole process group, keeps the work and exits ${status}`, async () => {
      const repository = scratchRepository();
      const pidFile = join(mkdtempSync(join(tmpdir(), "outpost-cli-pid-")), "child.pid");
      const { module } = scriptAgentModule({ HANG: "busy", FILE: "wip.txt", CHILD_PID_FILE: pidFile });
      let group = 0;
      const ended = await runUntilBusy(
        ["run", "--agent-module", module, "--provider", "local", "--branch", "integrate", "--json", "--until", "never", "work"],
        repository,
        (child) => {
          group = processGroupOf(Number(readFileSync(pidFile, "utf8")));
          child.kill(signal);
        },
      );
      expect(ended.status, ended.stderr).toBe(status);
      const error = lastJson(ended.stdout);
      expect(error.code).toBe("aborted");
      expect(error.details.recovery.commits).toHaveLength(1);
      expect(existsSync(join(error.details.recovery.directory, "wip.txt"))).toBe(true);
      expect(group).toBeGreaterThan(0);
      expect(await eventually(() => processesInGroup(group).length === 0)).toBe(true);
    }, 60_000);
  }

  it("a closed stdout (`outpost run --json | head -c 10`) stops the agent and exits 141 without an EPIPE stack", async () => {
    const repository = scratchRepository();
    const pidFile = join(mkdtempSync(join(tmpdir(), "outpost-cli-pid-")), "child.pid");
    const { module } = scriptAgentModule({ HANG: "busy", FILE: "piped.txt", CHILD_PID_FILE: pidFile });
    let group = 0;
    const ended = await runUntilBusy(
      ["run", "--agent-module", module, "--provider", "local", "--branch", "integrate", "--json", "--until", "never", "work"],
      repository,
      (child) => {
        group = processGroupOf(Number(readFileSync(pidFile, "utf8")));
        child.stdout.destroy();
      },
    );
    expect(ended.status, ended.stderr).toBe(141);
    expect(ended.stderr).not.toMatch(/EPIPE|Error:|\n\s+at /);
    expect(await eventually(() => processesInGroup(group).length === 0)).toBe(true);
  }, 60_000);
});

const gate = dockerGate();

(gate.unavailable ? describe.skip : describe)(
  `outpost run on Docker stopped by SIGTERM${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("removes the container and keeps the work", async () => {
      const repository = scratchRepository();
      const { module, directory } = scriptAgentModule({ HANG: "busy", FILE: "docker-wip.txt" }, { executable: "node" });
      let cliPid = 0;
      const user = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
      const ended = await runUntilBusy(
        [
          "run",
          "--agent-module",
          module,
          "--provider",
          "docker",
          "--image",
          DOCKER_TEST_IMAGE,
          "--network",
          "none",
          "--user",
          user,
          "--volume",
          `${directory}:${directory}:ro`,
          "--branch",
          "integrate",
          "--json",
          "--until",
          "never",
          "work",
        ],
        repository,
        (child) => {
          cliPid = child.pid!;
          child.kill("SIGTERM");
        },
      );
      expect(ended.status, ended.stderr).toBe(143);
      expect(lastJson(ended.stdout).details.recovery.commits).toHaveLength(1);
      const left = spawnSync("docker", ["ps", "-aq", "--filter", `label=dev.outpost.owner-pid=${cliPid}`], { encoding: "utf8" });
      expect(left.stdout.trim()).toBe("");
    }, 90_000);
  },
);
