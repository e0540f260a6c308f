import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxProvider } from "@outpost/core";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE } from "../../src/docker-gate.js";
import { scriptAgent } from "@outpost/testkit/script-agent";

/** Docker `isolated` (remote placement) for script-agent dispatches: nothing of the repository is mounted. */
export interface IsolatedDocker {
  /** Host directory of the script agent, mounted read-only at the same path in every sandbox. */
  readonly agentDirectory: string;
  /** A fresh provider; `root` (a named volume) at /workspace lets a later sandbox find what an earlier one held. */
  provider(root?: string): SandboxProvider;
  /** A script agent whose behaviour (e.g. `{ SHELL: "..." }`) runs in the sandbox. */
  agentWith(behaviour: Record<string, string>): ReturnType<typeof scriptAgent>;
}

export function isolatedDocker(): IsolatedDocker {
  const agentDirectory = mkdtempSync(join(tmpdir(), "outpost-agent-"));
  return {
    agentDirectory,
    provider: (root) =>
      dockerProvider({
        image: DOCKER_TEST_IMAGE,
        mode: "isolated",
        network: "none",
        user: { uid: 0, gid: 0 },
        volumes: [
          { source: agentDirectory, target: agentDirectory, readOnly: true },
          ...(root === undefined ? [] : [{ source: root, target: "/workspace" }]),
        ],
      }),
    agentWith: (behaviour) => scriptAgent({ directory: agentDirectory, executable: "node", behaviour }),
  };
}
