import { fileURLToPath } from "node:url";
import { defineProject, type UserWorkspaceConfig } from "vitest/config";

// Tests import sibling packages from their TypeScript sources (the "outpost-source" export condition),
// so a test run never depends on a stale dist/ of another package.
const conditions = ["outpost-source", "node", "import", "module", "default"];

// Test code runs in Node, so it resolves packages as Node does, without the bundlers' "module" condition:
// @opentelemetry/api's "module" build uses extensionless imports that Node cannot load.
const nodeConditions = conditions.filter((condition) => condition !== "module");

// Each test file gets a temporary root of its own, removed when it ends (see the file).
const privateTmpdir = fileURLToPath(new URL("./tools/test-private-tmpdir.ts", import.meta.url));

export function outpostProject(name: string, test: UserWorkspaceConfig["test"] = {}) {
  const setupFiles = [privateTmpdir, ...[test.setupFiles ?? []].flat()];
  return defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions: nodeConditions, externalConditions: nodeConditions } },
    test: {
      name,
      include: ["tests/**/*.test.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      ...test,
      // The repository's tests run the local test image (tools/build-test-image.sh) where no image is named;
      // users get outpost-agents:latest, what `outpost image build` tags.
      env: { OUTPOST_DOCKER_IMAGE: process.env.OUTPOST_DOCKER_IMAGE ?? "outpost-test:latest", ...test.env },
      setupFiles,
    },
  });
}
