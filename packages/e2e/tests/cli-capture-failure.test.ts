import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { gitIn, scratchRepository } from "../src/index.js";

// The CLI runs from its TypeScript sources, resolving sibling packages to theirs (as cli-run.test.ts does).
const packages = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = join(packages, "cli/src/bin.ts");
const tsxLoader = pathToFileURL(join(packages, "../node_modules/tsx/dist/loader.mjs")).href;

function outpost(args: readonly string[], cwd: string) {
  const result = spawnSync(process.execPath, ["--conditions=outpost-source", "--import", tsxLoader, bin, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * An --agent-module: the script agent (a real process that commits), whose store's capture runs a sandbox
 * script that dies as a bundled one did (issue 35) and fails as a store does, with the stderr's whole last lines.
 */
function failingCaptureModule(behaviour: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-cli-capture-"));
  const module = join(directory, "agent.mjs");
  const broken = `const padding = "${"x".repeat(300)}"; __require("node:fs");`;
  writeFileSync(
    module,
    [
      `import { scriptAgent } from ${JSON.stringify(join(packages, "e2e/src/index.ts"))};`,
      `import { OutpostError, tailLines } from ${JSON.stringify(join(packages, "core/src/index.ts"))};`,
      `export function createAgent() {`,
      `  const agent = scriptAgent({ directory: ${JSON.stringify(directory)}, behaviour: ${JSON.stringify(behaviour)} });`,
      `  const capture = async (id, context) => {`,
      `    const result = await context.sandbox.invoke({ executable: process.execPath, arguments: ["-e", ${JSON.stringify(broken)}] });`,
      '    throw new OutpostError("process", `The capture script exited with ${result.status}: ${tailLines(result.stderr, 600)}. Check node in the sandbox.`);',
      `  };`,
      `  return { ...agent, storage: { ...agent.storage, capture } };`,
      `}`,
    ].join("\n"),
  );
  return module;
}

describe("outpost run when the conversation cannot be captured", () => {
  const module = failingCaptureModule({ FILE: "cli.txt" });
  const run = (repository: string, ...flags: string[]) =>
    outpost(["run", "--agent-module", module, "--agent", "script", "--provider", "local", ...flags, "write cli.txt"], repository);

  it("prints no continue hint, and says what failed in its normal output and in --json", () => {
    const repository = scratchRepository();
    const plain = run(repository);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toContain(`commits: ${gitIn(repository, "rev-parse", "HEAD").slice(0, 12)} on main`);
    expect(plain.stdout).not.toContain("continue with");
    expect(plain.stdout).toMatch(
      /conversation: not captured, so it cannot be continued \(process\): Could not capture script-agent conversation/,
    );
    expect(plain.stdout).toContain("ReferenceError: __require is not defined");

    const json = run(scratchRepository(), "--json");
    expect(json.status, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
    expect(result).toMatchObject({ type: "result", conversation: null, conversationError: { code: "process", pass: 1 } });
    expect((result.conversationError as { message: string }).message).toContain("ReferenceError: __require is not defined");
  });

  it("--require-conversation fails the run with code session and keeps the commit", () => {
    const repository = scratchRepository();
    const failed = run(repository, "--branch", "integrate", "--require-conversation");
    expect(failed.status).toBe(1);
    expect(failed.stdout).not.toContain("continue with");
    expect(failed.stderr).toContain("outpost: session: The conversation was required but could not be captured (process)");
    expect(failed.stderr).toMatch(/Work is kept on branch (\S+) in \S+ \(1 commit/);
    const branch = /Work is kept on branch (\S+) in/.exec(failed.stderr)![1]!;
    expect(gitIn(repository, "show", `${branch}:cli.txt`)).toBe("written by the script agent");
    expect(gitIn(repository, "log", "--format=%s", "main")).not.toContain("script agent");
  });
});
