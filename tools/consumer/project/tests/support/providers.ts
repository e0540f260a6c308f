import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxProvider } from "@outpost/core";
import { dockerProvider } from "@outpost/provider-docker";
import { localProvider } from "@outpost/provider-local";
import { TEST_IMAGE } from "@outpost/testkit/gates";
import { BIN, NODE_MODULES, pathWithClis } from "./installed.js";

export type ProviderKind = "local" | "docker" | "docker isolated";

/** Copilot unpacks ~235 MB into its cache on first start: one cache for every sandbox, mounted into containers. */
export const SHARED_CACHE = join(tmpdir(), "outpost-consumer-cli-cache");
mkdirSync(SHARED_CACHE, { recursive: true });

/**
 * The provider of one kind, running the CLIs installed in the scratch project. Containers mount its
 * node_modules read-only at the same path and use the host network to reach the model server on 127.0.0.1.
 */
export function providerOf(kind: ProviderKind): SandboxProvider {
  if (kind === "local") return localProvider({ home: "private", variables: { PATH: pathWithClis() } });
  return dockerProvider({
    image: TEST_IMAGE,
    ...(kind === "docker isolated" ? { mode: "isolated" as const } : {}),
    network: "host",
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    volumes: [
      { source: NODE_MODULES, target: NODE_MODULES, readOnly: true },
      { source: SHARED_CACHE, target: SHARED_CACHE },
    ],
    variables: { PATH: `${BIN}:/usr/local/bin:/usr/bin:/bin` },
  });
}
