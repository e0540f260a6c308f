import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { OutpostError } from "@outpost/core";
import { agentDescriptor, agentVariablePrefix } from "../agents/load-agent.js";
import { repositoryExecutable } from "../agents/repository-executable.js";
import { findPlugins } from "../plugins/find-plugins.js";

/** The agent the demo runs and the CLI binary it found for it (`--executable` when not on PATH). */
export interface DemoAgent {
  readonly name: string;
  readonly executable: string;
}

/**
 * `--agent`, or the first installed agent plugin whose CLI is found: the project's node_modules/.bin (as
 * `outpost run` looks on the host), `OUTPOST_<AGENT>_EXECUTABLE`, then PATH.
 */
export async function demoAgent(requested: string | undefined): Promise<DemoAgent> {
  const names = requested ? [requested] : findPlugins("agent").map((plugin) => plugin.name);
  if (names.length === 0)
    throw new OutpostError(
      "configuration",
      "outpost demo needs an agent plugin and its CLI: install one beside outpost (npm install @outpost/agent-<name>; `outpost agents` lists what is installed).",
    );
  const missing: string[] = [];
  for (const name of names) {
    const descriptor = await agentDescriptor(name);
    const executable = findExecutable(descriptor.executable, process.env[`${agentVariablePrefix(name)}_EXECUTABLE`]);
    if (executable) return { name, executable };
    const cli = descriptor.cli
      ? `npm install -g ${descriptor.cli.npmPackage}@${descriptor.cli.version}`
      : `install ${descriptor.executable}`;
    missing.push(`${name}: ${cli}`);
  }
  throw new OutpostError(
    "configuration",
    `outpost demo runs a real agent CLI, and none was found (${missing.join("; ")}). Install one, or pass --agent <name> --executable <path>.`,
  );
}

/** `outpost demo` in a container: the first installed agent plugin (its CLI is the image's, not the host's). */
export function installedAgent(): string {
  const name = findPlugins("agent")[0]?.name;
  if (name === undefined)
    throw new OutpostError(
      "configuration",
      "outpost demo needs an agent plugin: install one beside outpost (npm install @outpost/agent-<name>; `outpost agents` lists what is installed).",
    );
  return name;
}

function findExecutable(name: string, fromEnvironment: string | undefined): string | undefined {
  if (fromEnvironment) return fromEnvironment;
  const local = repositoryExecutable(name, process.cwd());
  if (local) return local;
  for (const directory of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    const candidate = join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}
