import { defineConfig } from "vitest/config";

// Plain vitest in a user's project: no `outpost-source` condition, no aliases; packages come from node_modules.
export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    reporters: ["verbose"],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    // Two cores: files run two at a time; each agent file runs its turns in sequence.
    maxWorkers: 2,
  },
});
