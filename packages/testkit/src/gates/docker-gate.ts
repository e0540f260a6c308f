import { request } from "node:http";
import { gate } from "../shared/gate.js";
import type { Unavailable } from "../shared/suite-options.js";

/** The image the Outpost suites run in; tools/build-test-image.sh builds and tags it. */
export const TEST_IMAGE = process.env.OUTPOST_TEST_IMAGE ?? "outpost-test:latest";
/** A small image for cases that need no toolchain. */
export const BUSYBOX_IMAGE = process.env.OUTPOST_BUSYBOX_IMAGE ?? "outpost-busybox:latest";

export interface DockerGateOptions {
  /** Images that must already exist locally (nothing is pulled). Default: none. */
  readonly images?: readonly string[];
  /** Engine socket; default DOCKER_HOST when it is `unix://…`, else /var/run/docker.sock. */
  readonly socketPath?: string;
  /** Hint appended when an image is missing, e.g. the command that builds it. */
  readonly buildHint?: string;
}

/**
 * `{}` when a Docker engine answers on its socket and every listed image exists; otherwise a named skip,
 * or a throw under OUTPOST_REQUIRE_DOCKER=1 (CI), so Docker suites can never pass by skipping there.
 */
export async function dockerGate(options: DockerGateOptions = {}): Promise<{ unavailable?: Unavailable }> {
  return gate("Docker", await probeDocker(options));
}

async function probeDocker(options: DockerGateOptions): Promise<string | undefined> {
  const socketPath = options.socketPath ?? defaultSocket();
  const ping = await engineGet(socketPath, "/_ping");
  if (ping !== 200) return `no Docker engine reachable on ${socketPath}`;
  for (const image of options.images ?? []) {
    if ((await engineGet(socketPath, `/images/${encodeURIComponent(image)}/json`)) !== 200) {
      return `image ${image} missing: ${options.buildHint ?? "build or load it first (Outpost: tools/build-test-image.sh)"}`;
    }
  }
  return undefined;
}

function defaultSocket(): string {
  const host = process.env.DOCKER_HOST;
  return host?.startsWith("unix://") ? host.slice("unix://".length) : "/var/run/docker.sock";
}

/** The HTTP status of one engine API GET, or undefined when the socket does not answer. */
function engineGet(socketPath: string, path: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const call = request({ socketPath, path, method: "GET", timeout: 10_000 }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode));
    });
    call.on("timeout", () => call.destroy(new Error("timeout")));
    call.on("error", () => resolve(undefined));
    call.end();
  });
}
