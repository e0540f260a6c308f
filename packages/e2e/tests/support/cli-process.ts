import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { scratchRepository } from "../../src/index.js";

// The CLI runs from its TypeScript sources, resolving sibling packages to theirs (as the tests do).
export const PACKAGES = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = join(PACKAGES, "cli/src/bin.ts");
const tsxLoader = pathToFileURL(join(PACKAGES, "../node_modules/tsx/dist/loader.mjs")).href;

/** Node's arguments that run `outpost <args>` from sources, with extra modules preloaded first. */
export function outpostArguments(args: readonly string[], preload: readonly string[] = []): string[] {
  return ["--conditions=outpost-source", "--import", tsxLoader, ...preload.flatMap((module) => ["--import", module]), bin, ...args];
}

/** Starts `outpost <args>` as a real process (with `environment` in place of this process's, when given). */
export function startOutpost(args: readonly string[], cwd: string, environment?: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, outpostArguments(args), { cwd, stdio: "pipe", ...(environment ? { env: environment } : {}) });
}

/** A module the CLI loads with --agent-module: the script agent, a real process speaking JSON lines. */
export function scriptAgentModule(
  behaviour: Record<string, string>,
  options: { executable?: string } = {},
): { module: string; directory: string } {
  const directory = mkdtempSync(join(tmpdir(), "outpost-cli-agent-"));
  const module = join(directory, "agent.mjs");
  writeFileSync(
    module,
    [
      `import { scriptAgent } from ${JSON.stringify(join(PACKAGES, "e2e/src/index.ts"))};`,
      `export function createAgent() { return scriptAgent({ directory: ${JSON.stringify(directory)}, behaviour: ` +
        `${JSON.stringify(behaviour)}${options.executable ? `, executable: ${JSON.stringify(options.executable)}` : ""} }); }`,
    ].join("\n"),
  );
  return { module, directory };
}

/** The process group of a live process (field 5 of /proc/<pid>/stat). */
export function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/** Live (not zombie) processes of a process group. */
export function processesInGroup(group: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const fields = readFileSync(`/proc/${name}/stat`, "utf8").split(") ").pop()!.split(" ");
      if (Number(fields[2]) === group && fields[0] !== "Z") members.push(Number(name));
    } catch {
      // Exited while being read.
    }
  }
  return members;
}

/** Waits until `check` holds, polling (up to `attempts` × 50 ms). */
export async function eventually(check: () => boolean, attempts = 100): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (check()) return true;
    await new Promise((done) => setTimeout(done, 50));
  }
  return check();
}

/**
 * `outpost run` of a script agent writing `file`, on the local provider into a fresh scratch repository, with
 * `probe` (a module in tests/fixtures) preloaded: the probe reports on stderr what it saw of the fresh process.
 */
export function runLocalWithProbe(
  probe: string,
  file: string,
  environment: NodeJS.ProcessEnv = process.env,
): { status: number | null; stderr: string } {
  const { module } = scriptAgentModule({ FILE: file });
  const args = [
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
    `write ${file}`,
  ];
  const preload = pathToFileURL(join(PACKAGES, "e2e/tests/fixtures", probe)).href;
  const result = spawnSync(process.execPath, outpostArguments(args, [preload]), {
    cwd: scratchRepository(),
    encoding: "utf8",
    timeout: 60_000,
    env: environment,
  });
  return { status: result.status, stderr: result.stderr };
}
