import { spawnSync } from "node:child_process";

export const DOCKER_TEST_IMAGE = process.env.OUTPOST_TEST_IMAGE ?? "outpost-test:latest";

/**
 * `{}` when a Docker engine answers and the test image exists, else the reason to skip by name. Under
 * OUTPOST_REQUIRE_DOCKER=1 (CI) a missing engine throws instead, so CI never passes by skipping.
 */
export function dockerGate(image = DOCKER_TEST_IMAGE): { unavailable?: { reason: string } } {
  const probe = spawnSync("docker", ["image", "inspect", "--format", "{{.Id}}", image], { encoding: "utf8", timeout: 10_000 });
  const reason = probe.error
    ? "no docker client on PATH"
    : probe.status === 0
      ? undefined
      : /Cannot connect|Is the docker daemon running/i.test(probe.stderr)
        ? "no Docker engine reachable"
        : `image ${image} missing: build it with tools/build-test-image.sh`;
  if (reason === undefined) return {};
  if (process.env.OUTPOST_REQUIRE_DOCKER === "1")
    throw new Error(`Docker is required (OUTPOST_REQUIRE_DOCKER=1) but unavailable: ${reason}`);
  return { unavailable: { reason } };
}
