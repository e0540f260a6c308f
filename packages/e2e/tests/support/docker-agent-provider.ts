import { dirname } from "node:path";
import type { SandboxProvider } from "@outpost/core";
import { dockerProvider } from "@outpost/provider-docker";
import { DOCKER_TEST_IMAGE, dockerGate } from "../../src/docker-gate.js";
import { CLI_BIN } from "./cli-bin.js";
import { insideOfflineNamespace } from "./offline-tripwire.js";

const NODE_MODULES = dirname(CLI_BIN);

/**
 * Containers that run the pinned CLIs from the repository's node_modules (mounted read-only at the same path,
 * so `.bin` links resolve) and reach the model server on the host's 127.0.0.1 (`network: "host"`, never a
 * bridge address). `second` uses another root and home, so a restore really moves the conversation.
 */
export function dockerAgentProvider(which: "first" | "second"): SandboxProvider {
  return dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "host",
    // Root in the container, like the host user owning the scratch workspaces (the CLIs get IS_SANDBOX etc.).
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    volumes: [{ source: NODE_MODULES, target: NODE_MODULES, readOnly: true }],
    variables: { PATH: `${CLI_BIN}:/usr/local/bin:/usr/bin:/bin` },
    ...(which === "second" ? { root: "/srv/outpost/elsewhere", home: "/home/outpost-second" } : {}),
  });
}

/** Why the Docker variant cannot run here, or undefined. */
export function dockerAgentsUnavailable(): string | undefined {
  // Host-network containers live in the daemon's network namespace, not in offline.sh's: they could not reach
  // the model server there. The Docker variant runs outside it and proves offline-ness by the server's log.
  if (insideOfflineNamespace())
    return "host-network containers cannot join the offline namespace (run the Docker variant outside offline.sh)";
  return dockerGate().unavailable?.reason;
}
