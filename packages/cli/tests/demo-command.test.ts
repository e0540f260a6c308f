// `outpost demo` from the built CLI, as a user runs it: offline, no key, the repository's installed agent CLI.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, expect, it } from "vitest";
import { dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const command = join(packageRoot, "bin/outpost.cjs");

beforeAll(() => {
  if (!existsSync(join(packageRoot, "dist/demo/demo-command.js"))) throw new Error("dist is missing: run `npm run build` first.");
});

it("shows a commit merged back and a continuation that saw the first turn, and leaves nothing in the temp folder", () => {
  const temp = mkdtempSync(join(tmpdir(), "outpost-demo-test-"));
  const environment: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp };
  // No key anywhere: the demo must not need one.
  for (const name of Object.keys(environment)) if (/API_KEY|TOKEN/.test(name)) delete environment[name];
  const result = spawnSync(process.execPath, [command, "demo"], { cwd: packageRoot, env: environment, encoding: "utf8", timeout: 120_000 });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(/commit on main: [0-9a-f]+ Add hello\.txt/);
  expect(result.stdout).toMatch(/--continue [0-9a-f-]{36}/);
  expect(result.stdout).toContain("history_has_turn1=true");
  expect(readdirSync(temp).filter((name) => name.startsWith("outpost-demo-"))).toEqual([]);
});

it("an unknown agent is a usage error that lists the installed ones", () => {
  const result = spawnSync(process.execPath, [command, "demo", "--agent", "nosuch"], { cwd: packageRoot, encoding: "utf8" });
  expect(result.status).toBe(2);
  expect(result.stderr).toMatch(/nosuch/);
  expect(result.stderr).toMatch(/Installed agents: \w+/);
});

// A user's first Docker run: the same two turns in a container. The test image stands in for the one `outpost
// image build` makes, with the repository's Claude Code CLI mounted where the image has none.
const gate = await dockerGate();
const require = createRequire(import.meta.url);
const manifest = require.resolve("@anthropic-ai/claude-code/package.json");
const claudeBinary = join(dirname(manifest), (require(manifest) as { bin: { claude: string } }).bin.claude);
(gate.unavailable ? it.skip : it)(
  `--provider docker: the commit and the continuation both run in a container, offline${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    const temp = mkdtempSync(join(tmpdir(), "outpost-demo-test-"));
    const environment: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp };
    for (const name of Object.keys(environment)) if (/API_KEY|TOKEN/.test(name)) delete environment[name];
    const args = ["demo", "--agent", "claude", "--provider", "docker", "--image", TEST_IMAGE];
    args.push("--volume", `${dirname(manifest)}:${dirname(manifest)}:ro`, "--executable", claudeBinary);
    const result = spawnSync(process.execPath, [command, ...args], {
      cwd: packageRoot,
      env: environment,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("outpost run --agent claude --provider docker");
    expect(result.stdout).toMatch(/running claude in a docker sandbox/);
    expect(result.stdout).toMatch(/commit on main: [0-9a-f]+ Add hello\.txt/);
    expect(result.stdout).toContain("history_has_turn1=true");
    expect(readdirSync(temp).filter((name) => name.startsWith("outpost-demo-"))).toEqual([]);
  },
  300_000,
);

it("a provider that cannot reach this machine's loopback is a usage error naming the ones that can", () => {
  const result = spawnSync(process.execPath, [command, "demo", "--provider", "vercel"], { cwd: packageRoot, encoding: "utf8" });
  expect(result.status).toBe(2);
  expect(result.stderr).toContain("Pass --provider local or --provider docker;");
  expect(result.stderr).toContain("`outpost run --provider vercel`");
  expect(result.stdout).toBe("");
});
