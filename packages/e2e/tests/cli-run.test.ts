import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { gitIn, scratchRepository } from "../src/index.js";

// The CLI runs from its TypeScript sources, resolving sibling packages to theirs (as the tests do).
const packages = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = join(packages, "cli/src/bin.ts");
const tsxLoader = pathToFileURL(join(packages, "../node_modules/tsx/dist/loader.mjs")).href;

function outpost(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, ["--conditions=outpost-source", "--import", tsxLoader, bin, ...args], {
    cwd: options.cwd ?? packages,
    encoding: "utf8",
    env: { ...process.env, ...options.env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A module the CLI loads with --agent-module: the script agent, a real process speaking JSON lines. */
function scriptAgentModule(behaviour: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-cli-agent-"));
  const module = join(directory, "agent.mjs");
  writeFileSync(
    module,
    [
      `import { scriptAgent } from ${JSON.stringify(join(packages, "e2e/src/index.ts"))};`,
      `export function createAgent() { return scriptAgent({ directory: ${JSON.stringify(directory)}, behaviour: ${JSON.stringify(behaviour)} }); }`,
    ].join("\n"),
  );
  return module;
}

describe("outpost CLI", () => {
  it("--help everywhere exits 0 with usage", () => {
    for (const args of [["--help"], ["run", "--help"], ["agents", "--help"]]) {
      const result = outpost(args);
      expect(result.status, args.join(" ")).toBe(0);
      expect(result.stdout).toMatch(/^Usage: outpost/);
    }
    expect(outpost(["agents"]).stdout.split("\n")).toContain("claude\t@outpost/agent-claude");
    expect(outpost(["--help"]).stdout).toContain("Installed providers: daytona, docker, local, vercel");
  });

  it("a bad flag prints usage and exits non-zero", () => {
    const result = outpost(["run", "--agent", "claude", "--no-such-flag", "brief"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("unknown option '--no-such-flag'");
    expect(result.stderr).toContain("Usage: outpost run");
    const badProvider = outpost(["run", "--agent", "claude", "--provider", "moon", "brief"]);
    expect(badProvider.status).toBe(2);
    expect(badProvider.stderr).toContain('Unknown provider "moon". Installed providers: daytona, docker, local, vercel.');
  });

  it("an unknown agent exits 2 and lists the agents", () => {
    const repository = scratchRepository();
    const result = outpost(["run", "--agent", "nobody", "--provider", "local", "brief"], { cwd: repository });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("Installed agents: claude, codex, copilot, gemini, kimi, opencode.");
  });

  it("--json prints one parseable JSON event per line, ending with the result", () => {
    const repository = scratchRepository();
    const module = scriptAgentModule({ FILE: "cli.txt" });
    const result = outpost(
      ["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--branch", "integrate", "--json", "write cli.txt"],
      { cwd: repository },
    );
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
    expect(lines[0]!.type).toBe("start");
    expect(lines.filter((line) => line.type === "event").map((line) => (line.event as { type: string }).type)).toEqual([
      "conversation",
      "raw",
      "tool-call",
      "tool-result",
      "text",
      "finished",
    ]);
    const last = lines[lines.length - 1]!;
    expect(last).toMatchObject({ type: "result", completed: true, branch: "main" });
    expect(last.commits).toEqual([gitIn(repository, "rev-parse", "main")]);
  });

  it("a failed dispatch exits with its code's exit status and a message saying what to do", () => {
    const repository = scratchRepository();
    const module = scriptAgentModule({ EXIT: "9" });
    const json = outpost(["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--json", "fail"], {
      cwd: repository,
    });
    expect(json.status).toBe(1);
    const error = JSON.parse(json.stdout.trim().split("\n").pop()!) as {
      type: string;
      code: string;
      details: { recovery: { directory: string } };
    };
    expect(error).toMatchObject({ type: "error", code: "process" });
    expect(error.details.recovery.directory).toBe(repository);
    const plain = outpost(["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--idle-ms", "0", "fail"], {
      cwd: repository,
    });
    expect(plain.status).toBe(2);
  });

  it("plain output (not a terminal) shows progress lines and where the commit landed", () => {
    const repository = scratchRepository();
    const module = scriptAgentModule({ FILE: "plain.txt" });
    const result = outpost(["run", "--agent-module", module, "--agent", "script", "--provider", "local", "write plain.txt"], {
      cwd: repository,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("→ write");
    expect(result.stdout).toContain(`commits: ${gitIn(repository, "rev-parse", "HEAD").slice(0, 12)} on main`);
    expect(result.stdout).toMatch(/conversation: [0-9a-f-]{36} \(continue with: outpost run --agent-module \S+ --continue/);
  });

  it("without --provider and without a reachable Docker engine, it says how to choose", () => {
    const repository = scratchRepository();
    const result = outpost(["run", "--agent", "claude", "brief"], {
      cwd: repository,
      env: { DOCKER_HOST: "unix:///nonexistent/outpost-docker.sock" },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("No sandbox provider is available by default (docker: no Docker engine answers");
    expect(result.stderr).toContain("--provider <name> (installed: daytona, docker, local, vercel)");
  });

  it("--branch takes current, integrate or a branch name; @file reads a brief file", () => {
    const repository = scratchRepository();
    writeFileSync(join(repository, "brief.md"), "Brief from a file: $(echo expanded)\n");
    const module = scriptAgentModule({ FILE: "named.txt" });
    const result = outpost(
      ["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--branch", "feature/cli", "--json", "@brief.md"],
      { cwd: repository },
    );
    expect(result.status, result.stderr).toBe(0);
    const last = JSON.parse(result.stdout.trim().split("\n").pop()!) as { branch: string; commits: string[] };
    expect(last.branch).toBe("feature/cli");
    expect(gitIn(repository, "rev-parse", "feature/cli")).toBe(last.commits[0]);
    expect(gitIn(repository, "symbolic-ref", "--short", "HEAD")).toBe("main");
  });

  it("Ctrl-C (SIGINT) stops the agent's process tree and exits 130, keeping the work recoverable", async () => {
    const repository = scratchRepository();
    const pidFile = join(mkdtempSync(join(tmpdir(), "outpost-cli-pid-")), "child.pid");
    const module = scriptAgentModule({ HANG: "busy", FILE: "wip.txt", CHILD_PID_FILE: pidFile });
    const child = spawn(
      process.execPath,
      [
        "--conditions=outpost-source",
        "--import",
        tsxLoader,
        bin,
        "run",
        "--agent-module",
        module,
        "--agent",
        "script",
        "--provider",
        "local",
        "--branch",
        "integrate",
        "--json",
        "--until",
        "never",
        "work",
      ],
      { cwd: repository },
    );
    let out = "";
    let interrupted = false;
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      // One Ctrl-C stops gracefully; more would only report the cleanup, then force the exit.
      if (!interrupted && out.includes('"type":"text"')) {
        interrupted = true;
        child.kill("SIGINT");
      }
    });
    const status = await new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    expect(status).toBe(130);
    const error = JSON.parse(out.trim().split("\n").pop()!) as {
      code: string;
      details: { recovery: { commits: string[]; directory: string } };
    };
    expect(error.code).toBe("aborted");
    expect(error.details.recovery.commits).toHaveLength(1);
    expect(existsSync(join(error.details.recovery.directory, "wip.txt"))).toBe(true);
    // The interrupted conversation was captured anyway, so it can be continued.
    expect((error.details.recovery as { conversation?: { id: string } }).conversation?.id).toMatch(/^[0-9a-f-]{36}$/);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    let alive = true;
    for (let attempt = 0; attempt < 40 && alive; attempt += 1) {
      try {
        process.kill(grandchild, 0);
        // A zombie has exited; it only waits for a parent that does not reap it.
        if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${grandchild}/stat`, "utf8"))) alive = false;
        else await new Promise((done) => setTimeout(done, 50));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  }, 60_000);
});
