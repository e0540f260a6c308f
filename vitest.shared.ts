import { defineProject, type UserWorkspaceConfig } from "vitest/config";

// Tests import sibling packages from their TypeScript sources (the "outpost-source" export condition),
// so a test run never depends on a stale dist/ of another package.
const conditions = ["outpost-source", "node", "import", "module", "default"];

export function outpostProject(name: string, test: UserWorkspaceConfig["test"] = {}) {
  return defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: conditions } },
    test: { name, include: ["tests/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 60_000, ...test },
  });
}
