import { OutpostError } from "@outpost/core";
import { run } from "./install-cli.js";
import { PUBLIC_BASE_IMAGE } from "./public-base.js";

/**
 * Makes sure the base image is on the engine before the build: present, or pulled now. A base that is
 * neither gets a message saying what to pull or build, instead of the registry's raw error from docker build.
 */
export async function ensureBaseImage(base: string, log: (line: string) => void): Promise<void> {
  const present = await run("docker", ["image", "inspect", "--format", "{{.Id}}", base], `docker image inspect ${base}`).then(
    () => true,
    () => false,
  );
  if (present) return;
  log(`pulling the base image ${base}`);
  try {
    await run("docker", ["pull", "--quiet", base], `docker pull ${base}`);
  } catch (error) {
    const why = error instanceof Error ? (error.message.split("\n")[0] ?? "").slice(0, 300) : String(error);
    throw new OutpostError(
      "configuration",
      `The base image ${base} is not on this Docker engine and could not be pulled (${why}). ` +
        `Pull it where a registry is reachable (docker pull ${base}; docker save/load to move it), ` +
        `or pass --base <image> of your own that provides Node 20 (the default is the official ${PUBLIC_BASE_IMAGE}).`,
      { cause: error, details: { base } },
    );
  }
}
