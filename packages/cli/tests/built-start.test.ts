// The built CLI as npm links it: bin/outpost.cjs requires the one-file CommonJS start (dist/bin.cjs), which
// imports each command's ES modules only when that command runs. `npm test` builds before it tests.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, expect, it } from "vitest";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const command = join(packageRoot, "bin/outpost.cjs");
const start = join(packageRoot, "dist/bin.cjs");

beforeAll(() => {
  if (!existsSync(start)) throw new Error(`${start} is missing: run \`npm run build\` first (\`npm test\` does).`);
});

// stdin is /dev/null: a file, for which process.stdin builds an fs read stream (readline, fs/promises).
function outpost(args: string[], options: { cwd?: string; preload?: string } = {}) {
  const preload = options.preload === undefined ? [] : ["--require", options.preload];
  return spawnSync(process.execPath, [...preload, command, ...args], {
    cwd: options.cwd ?? tmpdir(),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

it("--help runs from one CommonJS file: no other module of the CLI, no @outpost package, no ES module, no stdin, no child_process", () => {
  const scratch = mkdtempSync(join(tmpdir(), "outpost-built-start-"));
  const recorder = join(scratch, "record-modules.cjs");
  // At exit: every CommonJS file loaded, and Node's internal modules: its ESM loader loads module_job only
  // to run an ES module, and reading process.stdin (/dev/null here) would load readline and fs/promises.
  writeFileSync(
    recorder,
    `process.on("exit", () => process.stderr.write(JSON.stringify({ files: Object.keys(require.cache), builtins: process.moduleLoadList })));`,
  );
  const result = outpost(["--help"], { preload: recorder });
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(/^Usage: outpost \[options\] \[command\]/);
  expect(result.stdout).toContain("run [options] <brief>");
  expect(result.stdout).toMatch(/Installed agents: .*claude/);
  const loaded = JSON.parse(result.stderr) as { files: string[]; builtins: string[] };
  expect(loaded.files.filter((file) => file !== recorder).sort()).toEqual([command, start].sort());
  expect(loaded.builtins).not.toContain("NativeModule internal/modules/esm/module_job");
  expect(loaded.builtins).not.toContain("NativeModule internal/readline/interface");
  expect(loaded.builtins).not.toContain("NativeModule child_process");
});

it("--version and a usage error behave as documented from the built start", () => {
  expect(outpost(["--version"]).stdout.trim()).toBe("0.1.0");
  const unknown = outpost(["bogus"]);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toContain("unknown command 'bogus'");
});

it("commands load their ES modules on use: ps in a repository, a plugin's command group, an unknown agent", () => {
  const repository = mkdtempSync(join(tmpdir(), "outpost-built-start-repo-"));
  expect(spawnSync("git", ["init", "-q", repository]).status).toBe(0);
  const ps = outpost(["ps"], { cwd: repository });
  expect(ps.stderr).toBe("");
  expect(ps.status).toBe(0);
  expect(ps.stdout).toContain("No dispatches on this repository.");

  const group = outpost(["queue", "--help"]);
  expect(group.status).toBe(0);
  expect(group.stdout).toContain("Usage: outpost queue");

  const agent = outpost(["run", "--agent", "no-such-agent", "--json", "brief"], { cwd: repository });
  expect(agent.status).toBe(2);
  const error = JSON.parse(agent.stdout.trim().split("\n").at(-1)!) as { type: string; code: string; message: string };
  expect(error).toMatchObject({ type: "error", code: "configuration" });
  expect(error.message).toContain('Unknown agent "no-such-agent"');
});
