import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutpostError, type PluginCommand, type PluginCommandHost } from "@outpost/core";
import { imageAgent, type ImageAgent } from "./image-agents.js";
import { imageRecipe } from "./image-recipe.js";
import { ensureBaseImage } from "./base-image.js";
import { PUBLIC_BASE_IMAGE } from "./public-base.js";
import { DEFAULT_DOCKER_IMAGE as DEFAULT_AGENT_IMAGE } from "../docker-provider-config.js";
import { installCli, run } from "./install-cli.js";

/**
 * `outpost image build`: an image holding the agents' CLIs (pinned or chosen releases) on the official Node
 * image (or the user's base), tagged with the name the Docker provider runs by default. The CLIs are installed on this host and copied in, so building needs no registry in the container.
 * Prints the `--image` to pass to `outpost run`; `--dockerfile` prints the recipe instead.
 */
export const imageBuildCommand: PluginCommand = {
  path: ["image", "build"],
  description:
    "Build an image with the agents' pinned (or chosen) CLI releases on a base image that provides Node 20; prints the --image to pass.",
  options: [
    {
      name: "agent",
      short: "a",
      value: "name[@version]",
      description: "agent whose CLI goes in (repeatable); @version picks a release instead of the pinned one",
      repeatable: true,
      required: true,
    },
    {
      name: "base",
      value: "image",
      // No commander default: the description says it once (commander would print it a second time).
      description: `base image providing Node 20 (default: the official ${PUBLIC_BASE_IMAGE}; pin it with @sha256:…)`,
    },
    {
      name: "tag",
      short: "t",
      value: "tag",
      description: `tag of the built image (default: ${DEFAULT_AGENT_IMAGE}, which --provider docker runs by default, and outpost-agents:<hash>)`,
    },
    { name: "dockerfile", description: "print the recipe instead of building" },
  ],
  run: async ({ options }, host) => {
    const names = Array.isArray(options.agent) ? (options.agent as string[]) : typeof options.agent === "string" ? [options.agent] : [];
    const base = typeof options.base === "string" ? options.base : PUBLIC_BASE_IMAGE;
    const agents = await resolveAgents(names, host);
    const recipe = imageRecipe(base, agents);
    if (options.dockerfile === true) {
      host.stdout.write(recipe);
      return;
    }
    // By default: the name the Docker provider runs unless told otherwise, and a tag of this recipe to pin.
    const tags =
      typeof options.tag === "string"
        ? [options.tag]
        : [DEFAULT_AGENT_IMAGE, `outpost-agents:${createHash("sha256").update(recipe).digest("hex").slice(0, 12)}`];
    const tag = tags[0]!;
    const log = (line: string) => host.stderr.write(`outpost image: ${line}\n`);
    await ensureBaseImage(base, log);
    await buildImage(tags, base, recipe, agents, log);
    const hint = tag === DEFAULT_AGENT_IMAGE ? "--provider docker runs it by default" : `run it with --provider docker --image ${tag}`;
    log(
      `${tags.join(" and ")} hold${tags.length === 1 ? "s" : ""} ${agents.map((agent) => `${agent.name} ${agent.version}`).join(", ")}; ${hint}`,
    );
    host.stdout.write(`--image ${tag}\n`);
  },
};

async function buildImage(
  tags: readonly string[],
  base: string,
  recipe: string,
  agents: readonly ImageAgent[],
  log: (line: string) => void,
): Promise<void> {
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
    const tag = tags[0]!;
    log(`building ${tag} on ${base}`);
    await run("docker", ["build", "--quiet", ...tags.flatMap((name) => ["--tag", name]), context], `docker build of ${tag}`);
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
          `${agent.executable} --version in ${tag} printed ${JSON.stringify(printed.trim().slice(0, 200))}, not ${agent.version}. ` +
            "Check that the base image provides Node 20.",
        );
      }
    }
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}

async function resolveAgents(names: readonly string[], host: PluginCommandHost): Promise<ImageAgent[]> {
  if (names.length === 0) throw new OutpostError("configuration", "Name at least one agent: --agent <name>[@<version>] (repeatable).");
  const agents: ImageAgent[] = [];
  for (const name of names) {
    const agent = await imageAgent(name, host.agent);
    if (agents.some((other) => other.name === agent.name))
      throw new OutpostError("configuration", `--agent ${agent.name} is given twice. Name each agent once.`);
    agents.push(agent);
  }
  return agents;
}
