import type { ImageAgent } from "./image-agents.js";

/** Where the CLIs live in the image: one npm prefix per agent, their executables linked from one bin folder. */
export const IMAGE_ROOT = "/opt/outpost";

/**
 * The Dockerfile of an agent image. The context holds `agents/<name>/` (an `npm install --prefix` of the CLI,
 * made on the host: containers need no registry) and `bin/<executable>` links into them. The base image must
 * provide Node 20 (`node` on PATH), as the test image does.
 */
export function imageRecipe(base: string, agents: readonly ImageAgent[]): string {
  const names = agents.map((agent) => `${agent.name}=${agent.version}`).join(" ");
  return [
    `# Written by \`outpost image build\`: ${agents.map((agent) => `${agent.npmPackage}@${agent.version}`).join(", ")} on ${base}.`,
    "# Context (prepared on a linux-x64 host, which has the npm registry):",
    ...agents.map((agent) => `#   agents/${agent.name}/  npm install --prefix agents/${agent.name} ${agent.npmPackage}@${agent.version}`),
    ...agents.map((agent) => `#   bin/${agent.executable} -> ../agents/${agent.name}/node_modules/.bin/${agent.executable}`),
    `FROM ${base}`,
    `COPY agents/ ${IMAGE_ROOT}/agents/`,
    `COPY bin/ ${IMAGE_ROOT}/bin/`,
    `ENV PATH=${IMAGE_ROOT}/bin:$PATH`,
    // Read by whoever runs the image: which CLI releases it holds (an agent can be given them as `version`).
    `LABEL io.outpost.agents=${JSON.stringify(names)}`,
    "",
  ].join("\n");
}
