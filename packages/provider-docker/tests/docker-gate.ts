import { describe, it } from "vitest";
import Docker from "dockerode";

/** The image the suites run in; tools/build-test-image.sh builds and tags it. */
export const TEST_IMAGE = process.env.OUTPOST_TEST_IMAGE ?? "outpost-test:latest";
export const BUSYBOX_IMAGE = process.env.OUTPOST_BUSYBOX_IMAGE ?? "outpost-busybox:latest";

/**
 * `{}` when a Docker engine answers and the test images exist; otherwise a named skip, or a throw under
 * OUTPOST_REQUIRE_DOCKER=1 (CI), so the Docker suites can never pass by skipping there.
 */
export async function dockerGate(images: readonly string[] = [TEST_IMAGE, BUSYBOX_IMAGE]): Promise<{ unavailable?: { reason: string } }> {
  const reason = await probe(images);
  if (reason === undefined) return {};
  if (process.env.OUTPOST_REQUIRE_DOCKER === "1") {
    throw new Error(`Docker is required (OUTPOST_REQUIRE_DOCKER=1) but unavailable: ${reason}`);
  }
  return { unavailable: { reason } };
}

async function probe(images: readonly string[]): Promise<string | undefined> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch {
    return "no Docker engine reachable";
  }
  for (const image of images) {
    try {
      await docker.getImage(image).inspect();
    } catch {
      return `image ${image} missing: run tools/build-test-image.sh`;
    }
  }
  return undefined;
}

/** Registers `body` as a describe block, or one named skip `unavailable: <reason>` when Docker is missing. */
export function describeDocker(title: string, gated: { unavailable?: { reason: string } }, body: () => void): void {
  const { unavailable } = gated;
  if (unavailable === undefined) describe(title, body);
  else describe(title, () => it.skip(`unavailable: ${unavailable.reason}`, () => undefined));
}
