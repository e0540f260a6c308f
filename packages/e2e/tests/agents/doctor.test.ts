import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scratchRepository } from "../../src/index.js";
import { CLI_BIN, missingCli, pathWithClis } from "../support/cli-bin.js";
import { outsideReleases } from "../support/cli-matrix.js";

/**
 * `outpost doctor` (the built bin) against the real CLIs, probed as a run starts them: in range (the pinned
 * ones), missing, out of range (a release from cli-matrix/outside.txt), slow (a `--version` past the budget),
 * and found in the project's node_modules/.bin. It exits 1 only when something asked about cannot run.
 */
const OUTPOST = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "cli", "bin", "outpost.cjs");
const REPOSITORY = dirname(dirname(CLI_BIN));
const codexOld = outsideReleases().find((release) => release.agent === "codex");
type Report = Record<string, unknown>;

function doctor(
  args: readonly string[],
  env: Record<string, string | undefined>,
  cwd = mkdtempSync(join(tmpdir(), "outpost-doctor-cwd-")),
) {
  const run = spawnSync(process.execPath, [OUTPOST, "doctor", ...args], {
    encoding: "utf8",
    cwd,
    env: { ...process.env, ...env },
    timeout: 180_000,
  });
  const reports = args.includes("--json")
    ? run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Report)
    : [];
  const agent = (name: string) => reports.find((report) => report["type"] === "agent-cli" && report["agent"] === name);
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, reports, agent };
}

describe.skipIf(missingCli("claude") !== undefined)("outpost doctor", () => {
  it("in range: installed vs pinned vs tested for every agent; Kimi's missing CLI is not found, not untracked", () => {
    const run = doctor(["--json"], { PATH: pathWithClis() });
    expect(run.status, run.stderr).toBe(0);
    const agents = run.reports.filter((report) => report["type"] === "agent-cli");
    expect(agents.map((report) => report["agent"])).toEqual(["claude", "codex", "copilot", "gemini", "kimi", "opencode"]);
    for (const report of agents.filter((entry) => entry["agent"] !== "kimi")) {
      expect(report, String(report["agent"])).toMatchObject({ status: "ok", installed: report["pinned"] });
    }
    expect(run.agent("kimi")).toMatchObject({ status: "not-found", problem: expect.stringMatching(/OUTPOST_KIMI_EXECUTABLE/) });
    expect(run.reports.filter((report) => report["type"] === "provider").map((report) => report["provider"])).toEqual([
      "daytona",
      "docker",
      "local",
      "vercel",
    ]);
  }, 180_000);

  it("missing: an agent asked about that cannot run exits 1, and --json still prints every report", () => {
    const run = doctor(["--json", "--agent", "claude"], { PATH: "/usr/bin:/bin" });
    expect(run.status).toBe(1);
    expect(run.agent("claude")).toMatchObject({
      status: "not-found",
      problem: expect.stringMatching(/install it, or set OUTPOST_CLAUDE_EXECUTABLE/),
    });
    expect(run.reports.filter((report) => report["type"] === "provider")).toHaveLength(4);
    const human = doctor(["--agent", "claude"], { PATH: "/usr/bin:/bin" });
    expect(human.status).toBe(1);
    expect(human.stdout).toMatch(/^claude .*not found \(claude\): install it or set OUTPOST_CLAUDE_EXECUTABLE/m);
    expect(human.stderr).toContain("cannot run: --agent claude");
  }, 180_000);

  it("missing, every agent: each is not found with the variable that names its executable, and doctor exits 1", () => {
    const names = ["claude", "codex", "copilot", "gemini", "kimi", "opencode"];
    const run = doctor(["--json", ...names.flatMap((name) => ["--agent", name])], { PATH: "/usr/bin:/bin" });
    expect(run.status).toBe(1);
    for (const name of names) {
      expect(run.agent(name), name).toMatchObject({
        status: "not-found",
        problem: expect.stringContaining(`OUTPOST_${name.toUpperCase()}_EXECUTABLE`),
      });
    }
  }, 180_000);

  it("finds the CLI the project installed in its node_modules/.bin, as a run on the host does", () => {
    const run = doctor(["--json", "--agent", "claude"], { PATH: "/usr/bin:/bin" }, REPOSITORY);
    expect(run.status, run.stderr).toBe(0);
    expect(run.agent("claude")).toMatchObject({ status: "ok", executable: join(CLI_BIN, "claude") });
  }, 180_000);

  it.skipIf(codexOld?.missing !== undefined)(
    `out of range: codex ${codexOld?.version} runs, and the features it changes are named`,
    () => {
      const env = { PATH: "/usr/bin:/bin", OUTPOST_CODEX_EXECUTABLE: codexOld!.executable };
      const run = doctor(["--json", "--agent", "codex"], env);
      expect(run.status, run.stderr).toBe(0);
      expect(run.agent("codex")).toMatchObject({
        installed: codexOld!.version,
        status: "outside-tested-range",
        affected: ["fork (from 0.148.0)"],
      });
      expect(doctor(["--agent", "codex"], env).stdout).toMatch(/outside the tested range: affects fork \(from 0\.148\.0\)/);
    },
    180_000,
  );

  it.skipIf(missingCli("opencode") !== undefined)(
    "slow: a --version past the budget is a timeout (the version a run treats as unknown), not a missing CLI",
    () => {
      const directory = mkdtempSync(join(tmpdir(), "outpost-slow-version-"));
      writeFileSync(
        join(directory, "opencode"),
        `#!/bin/sh\nif [ "$1" = "--version" ]; then sleep 30; fi\nexec ${JSON.stringify(join(CLI_BIN, "opencode"))} "$@"\n`,
      );
      chmodSync(join(directory, "opencode"), 0o755);
      const env = { PATH: pathWithClis(), OUTPOST_OPENCODE_EXECUTABLE: join(directory, "opencode"), OUTPOST_CLI_PROBE_MS: "1500" };
      const run = doctor(["--json", "--agent", "opencode"], env);
      expect(run.status, run.stderr).toBe(0);
      expect(run.agent("opencode")).toMatchObject({
        status: "timeout",
        problem: expect.stringMatching(/did not answer within 2 s; a run treats the version as unknown: name it with --agent-version/),
        unknownEffect: expect.stringMatching(/no permission flag/),
      });
      expect(doctor(["--agent", "opencode"], env).stdout).toMatch(/^opencode .*timeout: `.*opencode --version` did not answer within 2 s/m);
    },
    180_000,
  );

  it.skipIf(missingCli("copilot") !== undefined)(
    "probes Copilot with its run's variables and leaves no cache behind",
    () => {
      const home = mkdtempSync(join(tmpdir(), "outpost-doctor-home-"));
      const temp = mkdtempSync(join(tmpdir(), "outpost-doctor-tmp-"));
      const run = doctor(["--json", "--agent", "copilot"], { PATH: pathWithClis(), HOME: home, XDG_CACHE_HOME: undefined, TMPDIR: temp });
      expect(run.status, run.stderr).toBe(0);
      expect(run.agent("copilot")).toMatchObject({ status: "ok", installed: "1.0.102" });
      expect(existsSync(join(home, ".cache", "copilot"))).toBe(false);
      expect(readdirSync(temp)).toEqual([]);
    },
    180_000,
  );
  it("reads the checkout's .outpost/.env as a run does: its PATH finds the CLI, its key counts, values never printed", () => {
    const repository = scratchRepository();
    mkdirSync(join(repository, ".outpost"));
    const envFile = join(repository, ".outpost", ".env");
    writeFileSync(
      envFile,
      `# what every agent command gets\nexport PATH=${pathWithClis("/usr/bin:/bin")}\nANTHROPIC_API_KEY='sk-ant-from-env-file'\n`,
      {
        mode: 0o600,
      },
    );
    const env = { PATH: "/usr/bin:/bin", ANTHROPIC_API_KEY: undefined, OUTPOST_API_KEY: undefined };
    const run = doctor(["--json", "--agent", "claude"], env, repository);
    expect(run.status, run.stderr).toBe(0);
    expect(run.agent("claude")).toMatchObject({ status: "ok", credentials: "present", credentialsFrom: ".outpost/.env" });
    expect(run.reports.find((report) => report["type"] === "env-file")).toEqual({
      type: "env-file",
      path: envFile,
      status: "ok",
      variables: ["PATH", "ANTHROPIC_API_KEY"],
    });
    const human = doctor(["--agent", "claude"], env, repository);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^claude .*present \(\.outpost\/\.env\)/m);
    expect(human.stdout).toContain(`${envFile}: every agent command gets PATH, ANTHROPIC_API_KEY`);
    expect(human.stdout + human.stderr + run.stdout).not.toContain("sk-ant-from-env-file");
    // Without the file the key is missing and the CLI is not on PATH: the file was what the probe used.
    const bare = doctor(["--json", "--agent", "claude"], env, scratchRepository());
    expect(bare.agent("claude")).toMatchObject({ status: "not-found", credentials: "missing" });
    expect(bare.reports.find((report) => report["type"] === "env-file")).toMatchObject({ status: "absent", variables: [] });
  }, 180_000);

  it("a .outpost/.env a run would refuse (writable by others) is reported refused, and doctor exits 1", () => {
    const repository = scratchRepository();
    mkdirSync(join(repository, ".outpost"));
    const envFile = join(repository, ".outpost", ".env");
    writeFileSync(envFile, "ANTHROPIC_API_KEY=sk-ant-x\n");
    chmodSync(envFile, 0o666);
    const run = doctor(["--json"], { PATH: pathWithClis() }, repository);
    expect(run.status).toBe(1);
    expect(run.reports.find((report) => report["type"] === "env-file")).toMatchObject({
      status: "refused",
      path: envFile,
      problem: expect.stringMatching(/writ/),
    });
    expect(run.reports.filter((report) => report["type"] === "agent-cli")).toHaveLength(6);
    const human = doctor([], { PATH: pathWithClis() }, repository);
    expect(human.status).toBe(1);
    expect(human.stdout).toMatch(/\.env: refused: /);
    expect(human.stderr).toContain("cannot run: every run here");
  }, 180_000);
});
