import type { OutpostConfig } from "../config/config-schema.js";

/** The official Node image agent images start from (see provider docs for the digest to pin). */
export const PUBLIC_BASE_IMAGE = "node:20-bookworm-slim";

/** An agent CLI the Dockerfile installs, from the agent plugin's descriptor. */
export interface PinnedCli {
  readonly npmPackage: string;
  readonly version: string;
}

export function configText(config: OutpostConfig): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** `.outpost/.env.example`: the variables every agent command gets, once copied to `.outpost/.env` (never committed). */
export function envExampleText(keys: readonly string[]): string {
  return [
    "# Copy to .outpost/.env (git-ignored) and fill in: every agent command of `outpost run` gets these variables.",
    "# NAME=value lines; # starts a comment. Keys travel as variables, never in files inside the sandbox.",
    ...(keys.length > 0 ? keys.map((key) => `# ${key}=`) : ["# OUTPOST_API_KEY="]),
    "",
  ].join("\n");
}

/**
 * `.outpost/Dockerfile`: an agent image from the official Node image with git and the pinned CLIs, built
 * anywhere a registry is reachable, tagged outpost-agents:latest (the container provider's default image).
 */
export function dockerfileText(clis: readonly PinnedCli[]): string {
  const packages = clis.map((cli) => `${cli.npmPackage}@${cli.version}`).join(" ");
  return [
    "# Written by `outpost init`: an agent image for `outpost run --provider <container provider>`.",
    "# Build it with your container engine: <engine> build -t outpost-agents:latest .outpost",
    "# (or `outpost image build --agent <name>`, which installs the CLIs on your host and needs no registry in the build)",
    `FROM ${PUBLIC_BASE_IMAGE}`,
    "RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates procps \\",
    "  && rm -rf /var/lib/apt/lists/* && git config --system --add safe.directory '*'",
    ...(packages ? [`RUN npm install -g --no-audit --no-fund ${packages}`] : ["# RUN npm install -g <agent CLI>@<version>"]),
    "USER node",
    "",
  ].join("\n");
}

/** `.outpost/.gitignore`: share the config, the env example and the Dockerfile; keep the rest out of git. */
export const OUTPOST_GITIGNORE = ["*", "!.gitignore", "!config.json", "!.env.example", "!Dockerfile", ""].join("\n");

/** The line `outpost init` adds to the checkout's `.gitignore`: the variables file holds keys. */
export const ROOT_GITIGNORE_LINE = ".outpost/.env";
