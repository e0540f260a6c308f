import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { gitIn } from "../src/index.js";

// The CLI runs from its TypeScript sources, as in cli-run.test.ts.
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
 * A third-party agent plugin, installed as a package in a scratch node_modules: its package.json declares
 * `"outpost": { "kind": "agent", "descriptor": "./descriptor" }`, resolved through its own exports map.
 */
function installThirdPartyAgent(root: string, descriptor: Record<string, string>): void {
  const directory = join(root, "node_modules", "@acme", "outpost-agent-echo");
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, "package.json"),
    JSON.stringify({
      name: "@acme/outpost-agent-echo",
      version: "1.0.0",
      type: "module",
      exports: { "./descriptor": { import: "./descriptor.mjs" } },
      outpost: { kind: "agent", descriptor: "./descriptor" },
    }),
  );
  writeFileSync(
    join(directory, "descriptor.mjs"),
    [
      `import { scriptAgent } from ${JSON.stringify(join(packages, "e2e/src/index.ts"))};`,
      "export const descriptor = {",
      `  specificationVersion: ${JSON.stringify(descriptor.specificationVersion ?? "v1")}, kind: "agent", name: "echo", description: "a third-party test agent",`,
      `  executable: "node", variables: {},`,
      `  createAgent: () => scriptAgent({ directory: ${JSON.stringify(root)}, behaviour: { FILE: "echo.txt" } }),`,
      "};",
    ].join("\n"),
  );
}

/** A third-party provider (unscoped, descriptor at the main export) that runs on the host and records its options. */
function installThirdPartyProvider(root: string): string {
  const directory = join(root, "node_modules", "outpost-provider-hostbox");
  const record = join(root, "hostbox-options.json");
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, "package.json"),
    JSON.stringify({
      name: "outpost-provider-hostbox",
      version: "1.0.0",
      type: "module",
      main: "index.mjs",
      outpost: { kind: "provider", descriptor: "." },
    }),
  );
  writeFileSync(
    join(directory, "index.mjs"),
    [
      'import { writeFileSync } from "node:fs";',
      `import { localProvider } from ${JSON.stringify(join(packages, "provider-local/src/index.ts"))};`,
      "export const descriptor = {",
      '  specificationVersion: "v1", kind: "provider", name: "hostbox", description: "a third-party test provider", placement: "host",',
      '  options: [{ name: "region", description: "where" }], capabilities: [],',
      `  createProvider: (options) => { writeFileSync(${JSON.stringify(record)}, JSON.stringify(options)); return localProvider(); },`,
      "};",
    ].join("\n"),
  );
  return record;
}

/**
 * A third-party provider that adds a command group (`outpost hostbox …`, listed in its package.json) and
 * whose commands use what the host offers: arguments, options, the installed agents.
 */
function installProviderWithCommands(root: string): void {
  const directory = join(root, "node_modules", "outpost-provider-cmdbox");
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, "package.json"),
    JSON.stringify({
      name: "outpost-provider-cmdbox",
      version: "1.0.0",
      type: "module",
      main: "index.mjs",
      outpost: { kind: "provider", descriptor: ".", commands: { cmdbox: "Manage cmdbox sandboxes." } },
    }),
  );
  writeFileSync(
    join(directory, "index.mjs"),
    [
      `import { OutpostError } from ${JSON.stringify(join(packages, "core/src/index.ts"))};`,
      "const greet = {",
      '  path: ["cmdbox", "greet"], description: "Greets someone.",',
      '  arguments: [{ name: "who", description: "whom", required: true }],',
      '  options: [{ name: "loud", description: "shout" }, { name: "tag", short: "t", value: "tag", description: "tags", repeatable: true },',
      '    { name: "colourName", value: "colour", description: "colour", default: "blue" }],',
      "  run: async (input, host) => {",
      '    const agent = await host.agent("echo");',
      "    host.stdout.write(JSON.stringify({ ...input, agent: agent.name }) + '\\n');",
      "  },",
      "};",
      "const fail = {",
      '  path: ["cmdbox", "fail"], description: "Fails.", options: [{ name: "json", description: "JSON" }],',
      '  run: async () => { throw new OutpostError("conflict", "the box is taken"); },',
      "};",
      "export const descriptor = {",
      '  specificationVersion: "v1", kind: "provider", name: "cmdbox", description: "a provider with commands", placement: "host",',
      "  options: [], capabilities: [], createProvider: () => { throw new Error('not used'); }, commands: [greet, fail],",
      "};",
    ].join("\n"),
  );
}

function projectWithPlugin(descriptor: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "outpost-plugin-"));
  installThirdPartyAgent(root, descriptor);
  const repository = join(root, "repo");
  mkdirSync(repository);
  gitIn(repository, "init", "--quiet", "--initial-branch=main");
  writeFileSync(join(repository, "README.md"), "# scratch\n");
  gitIn(repository, "add", "README.md");
  gitIn(repository, "commit", "--quiet", "-m", "initial commit");
  return repository;
}

describe("third-party plugins installed beside the project", () => {
  it("show up in outpost --help and outpost agents, and run with --agent <theirs>, without a CLI change", () => {
    const repository = projectWithPlugin();
    const help = outpost(["--help"], repository);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/Installed agents: .*\becho\b/);
    expect(outpost(["agents"], repository).stdout.split("\n")).toContain("echo\t@acme/outpost-agent-echo");
    const run = outpost(["run", "--agent", "echo", "--provider", "local", "--json", "write echo.txt"], repository);
    expect(run.status, run.stderr).toBe(0);
    const last = JSON.parse(run.stdout.trim().split("\n").pop()!) as { type: string; completed: boolean; commits: string[] };
    expect(last).toMatchObject({ type: "result", completed: true });
    expect(last.commits).toEqual([gitIn(repository, "rev-parse", "main")]);
    expect(gitIn(repository, "show", "--name-only", "--format=", "main")).toBe("echo.txt");
  });

  it("a third-party provider is listed, chosen with --provider <theirs>, and gets its --provider-option values", () => {
    const repository = projectWithPlugin();
    const record = installThirdPartyProvider(dirname(repository));
    expect(outpost(["--help"], repository).stdout).toMatch(/Installed providers: .*\bhostbox\b/);
    const run = outpost(
      ["run", "--agent", "echo", "--provider", "hostbox", "--provider-option", "region=eu-1", "--json", "write echo.txt"],
      repository,
    );
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(record, "utf8"))).toEqual({ region: "eu-1" });
    expect(JSON.parse(run.stdout.trim().split("\n").pop()!)).toMatchObject({ type: "result", completed: true });
    const foreign = outpost(["run", "--agent", "echo", "--provider", "hostbox", "--provider-option", "zone=x", "brief"], repository);
    expect(foreign.status).toBe(2);
    expect(foreign.stderr).toContain("--zone does not apply to --provider hostbox (it reads: --region)");
  });

  it("a plugin's command group shows in outpost --help and runs from its descriptor, with the host's services", () => {
    const repository = projectWithPlugin();
    installProviderWithCommands(dirname(repository));
    expect(outpost(["--help"], repository).stdout).toMatch(/\n\s+cmdbox \[arguments\.\.\.\]\s+Manage cmdbox sandboxes\./);
    const help = outpost(["cmdbox", "greet", "--help"], repository);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage: outpost cmdbox greet [options] <who>");
    expect(help.stdout).toMatch(/-t, --tag <tag>\s+tags/);
    expect(help.stdout).toMatch(/--colour-name <colour>\s+colour \(default: "blue"\)/);
    const greeted = outpost(["cmdbox", "greet", "world", "--loud", "-t", "a", "--tag", "b"], repository);
    expect(greeted.status, greeted.stderr).toBe(0);
    expect(JSON.parse(greeted.stdout)).toEqual({
      arguments: ["world"],
      options: { loud: true, tag: ["a", "b"], colourName: "blue" },
      agent: "echo",
    });
    const missing = outpost(["cmdbox", "greet"], repository);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'who'");
    const failed = outpost(["cmdbox", "fail"], repository);
    expect(failed.status).toBe(4);
    expect(failed.stderr).toContain("outpost: conflict: the box is taken");
    const json = outpost(["cmdbox", "fail", "--json"], repository);
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "error", code: "conflict", message: "the box is taken" });
  });

  it("a descriptor of another specification version is refused by name", () => {
    const repository = projectWithPlugin({ specificationVersion: "v99" });
    const run = outpost(["run", "--agent", "echo", "--provider", "local", "brief"], repository);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('@acme/outpost-agent-echo has a descriptor of specificationVersion "v99"');
  });

  it("a flag the chosen provider does not read is refused, naming what it reads", () => {
    const repository = projectWithPlugin();
    const run = outpost(["run", "--agent", "echo", "--provider", "local", "--image", "x", "brief"], repository);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--image does not apply to --provider local (it reads: --inherit-environment)");
  });
});
