import type { ImageAgent } from "./image-agents.js";

/** Where the CLIs live in the image: one npm prefix per agent, their executables linked from one bin folder. */
export const IMAGE_ROOT = "/opt/outpost";

/**
 * The Dockerfile of an agent image. The context holds `agents/<name>/` (an `npm install --prefix` of the CLI,
 * made on the host: containers need no registry) and `bin/<executable>` links into them. The base image must
 * provide Node 20 (`node` on PATH): the official Node image by default (`PUBLIC_BASE_IMAGE`), or the test image.
 */
export function imageRecipe(base: string, agents: readonly ImageAgent[]): string {
  const names = agents.map((agent) => `${agent.name}=${agent.version}`).join(" ");
  return [
    `# Written by \`outpost image build\`: ${agents.map((agent) => `${agent.npmPackage}@${agent.version}`).join(", ")} on ${base}.`,
    "# Context (prepared on a linux-x64 host, which has the npm registry):",
    ...agents.map((agent) => `#   agents/${agent.name}/  npm install --prefix agents/${agent.name} ${agent.npmPackage}@${agent.version}`),
    ...agents.map((agent) => `#   bin/${agent.executable} -> ../agents/${agent.name}/node_modules/.bin/${agent.executable}`),
    `FROM ${base}`,
    // What Outpost needs beside Node, missing from the official Node image: git (the agent commits), ps, and
    // git's trust in a worktree owned by another uid. Installed only when absent, so a base that has them
    // (the repository's test image) builds with no registry.
    "USER root",
    "RUN command -v git >/dev/null && command -v ps >/dev/null || { apt-get update \\",
    "  && apt-get install -y --no-install-recommends git ca-certificates procps && rm -rf /var/lib/apt/lists/*; }",
    "RUN git config --system --get-all safe.directory | grep -qx '[*]' || git config --system --add safe.directory '*'",
    `COPY agents/ ${IMAGE_ROOT}/agents/`,
    `COPY bin/ ${IMAGE_ROOT}/bin/`,
    `ENV PATH=${IMAGE_ROOT}/bin:$PATH`,
    // Read by whoever runs the image: which CLI releases it holds (an agent can be given them as `version`).
    `LABEL io.outpost.agents=${JSON.stringify(names)}`,
    "",
  ].join("\n");
}
