import { OutpostError, type AgentDescriptor } from "@outpost/core";

/** One agent CLI to put in an image: its npm package at the pinned (or chosen) version, and its executable. */
export interface ImageAgent {
  readonly name: string;
  readonly npmPackage: string;
  readonly version: string;
  readonly executable: string;
}

/**
 * `codex` (the plugin's pinned release, from its descriptor) or `codex@0.147.0` (a chosen one)
 * → the package to install and the executable to expose. An agent without an npm package fails.
 */
export async function imageAgent(argument: string, agentDescriptor: (name: string) => Promise<AgentDescriptor>): Promise<ImageAgent> {
  const at = argument.indexOf("@", 1);
  const name = at > 0 ? argument.slice(0, at) : argument;
  const chosen = at > 0 ? argument.slice(at + 1) : undefined;
  if (chosen !== undefined && !/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/.test(chosen)) {
    throw new OutpostError(
      "configuration",
      `--agent ${JSON.stringify(argument)}: ${JSON.stringify(chosen)} is not a version such as 0.171.0. Pass <agent> or <agent>@<version>.`,
    );
  }
  const agent = await agentDescriptor(name);
  if (agent.cli === undefined) {
    throw new OutpostError(
      "configuration",
      `${name} has no npm package to install (its plugin names none), so it cannot be put in an image. Install its CLI into your base image yourself.`,
    );
  }
  const executable = agent.executable;
  if (!/^[A-Za-z0-9._-]+$/.test(executable))
    throw new OutpostError("configuration", `${name}'s executable ${JSON.stringify(executable)} is not a plain command name.`);
  return { name, npmPackage: agent.cli.npmPackage, version: chosen ?? agent.cli.version, executable };
}
