import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import type { ProgramIo } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { imageAgent, type ImageAgent } from "./image-agents.js";
import { imageRecipe } from "./image-recipe.js";
import { installCli, run } from "./install-cli.js";

export interface ImageBuildFlags {
  /** `<name>` or `<name>@<version>`, at least one. */
  readonly agent: string[];
  readonly base: string;
  readonly tag?: string;
  readonly dockerfile?: boolean;
}

/**
 * `outpost image build`: an image holding the agents' CLIs (pinned or chosen releases) on the user's base
 * image. The CLIs are installed on this host and copied in, so building needs no registry in the container.
 * Prints the `--image` to pass to `outpost run`; `--dockerfile` prints the recipe instead.
 */
export async function imageBuildCommand(flags: ImageBuildFlags, io: ProgramIo): Promise<number> {
  try {
    const agents = await resolveAgents(flags.agent);
    const recipe = imageRecipe(flags.base, agents);
    if (flags.dockerfile) {
      io.stdout.write(recipe);
      return EXIT_CODES.success;
    }
    const tag = flags.tag ?? `outpost-agents:${createHash("sha256").update(recipe).digest("hex").slice(0, 12)}`;
    const log = (line: string) => io.stderr.write(`outpost image: ${line}\n`);
    const context = await mkdtemp(join(tmpdir(), "outpost-image-"));
    try {
      await mkdir(join(context, "agents"));
      await mkdir(join(context, "bin"));
      for (const agent of agents) {
        const prefix = await installCli(agent, log);
        // Hard links: the context holds the installed tree without copying hundreds of megabytes.
        await run("cp", ["-al", prefix, join(context, "agents", agent.name)], `linking ${prefix} into the build context`).catch(() =>
          run("cp", ["-a", prefix, join(context, "agents", agent.name)], `copying ${prefix} into the build context`),
        );
        await symlink(`../agents/${agent.name}/node_modules/.bin/${agent.executable}`, join(context, "bin", agent.executable));
      }
      await writeFile(join(context, "Dockerfile"), recipe);
      log(`building ${tag} on ${flags.base}`);
      await run("docker", ["build", "--quiet", "--tag", tag, context], `docker build of ${tag}`);
      // The image must really run each CLI: Node in the base, the links, the platform binaries.
      for (const agent of agents) {
        const printed = await run(
          "docker",
          ["run", "--rm", "--network", "none", "--env", "COPILOT_AUTO_UPDATE=false", tag, agent.executable, "--version"],
          `${agent.executable} --version in ${tag}`,
        );
        if (!printed.includes(agent.version)) {
          throw new OutpostError(
            "process",
            `${agent.executable} --version in ${tag} printed ${JSON.stringify(printed.trim().slice(0, 200))}, not ${agent.version}. Check that the base image provides Node 20.`,
          );
        }
      }
    } finally {
      await rm(context, { recursive: true, force: true });
    }
    log(`${tag} holds ${agents.map((agent) => `${agent.name} ${agent.version}`).join(", ")}; run it with --provider docker --image ${tag}`);
    io.stdout.write(`--image ${tag}\n`);
    return EXIT_CODES.success;
  } catch (caught) {
    const error = OutpostError.isInstance(caught)
      ? caught
      : new OutpostError("process", `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}.`, { cause: caught });
    io.stderr.write(`outpost: ${error.code}: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
}

async function resolveAgents(names: readonly string[]): Promise<ImageAgent[]> {
  if (names.length === 0) throw new OutpostError("configuration", "Name at least one agent: --agent <name>[@<version>] (repeatable).");
  const agents: ImageAgent[] = [];
  for (const name of names) {
    const agent = await imageAgent(name);
    if (agents.some((other) => other.name === agent.name))
      throw new OutpostError("configuration", `--agent ${agent.name} is given twice. Name each agent once.`);
    agents.push(agent);
  }
  return agents;
}
