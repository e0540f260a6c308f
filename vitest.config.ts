import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "tools/vitest.config.ts"],
    reporters: process.env.CI ? ["verbose"] : ["default"],
  },
});
