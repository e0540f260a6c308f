import { spawnSync } from "node:child_process";
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { NODE_MODULES, PROJECT } from "./support/installed.js";

// Guard against a workspace resolution sneaking in: what the tests import is the packed dist/, nothing else.
describe("the packages under test are the installed tarballs", () => {
  it("every @outpost entry resolves, inside vitest too, to node_modules/@outpost/<name>/dist", async () => {
    const names = ["core", "dispatch", "cli", "conversations", "plugin-utils", "testkit", "queue-bullmq", "transport-fs", "transport-s3"];
    const agents = ["claude", "codex", "copilot", "gemini", "kimi", "opencode"].map((name) => `agent-${name}`);
    const providers = ["local", "docker", "vercel", "daytona"].map((name) => `provider-${name}`);
    const wrong: string[] = [];
    for (const name of [...names, ...agents, ...providers]) {
      const manifest = JSON.parse(await readFile(join(NODE_MODULES, "@outpost", name, "package.json"), "utf8")) as {
        exports: Record<string, unknown>;
      };
      for (const entry of Object.keys(manifest.exports).filter((key) => key !== "./package.json")) {
        const specifier = `@outpost/${name}${entry.slice(1)}`;
        try {
          const file = realpathSync(fileURLToPath(import.meta.resolve(specifier)));
          if (!file.startsWith(join(realpathSync(NODE_MODULES), "@outpost", name, "dist") + "/")) wrong.push(`${specifier} → ${file}`);
        } catch (error) {
          wrong.push(`${specifier}: ${(error as Error).message}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("the project is in no git checkout, and its @outpost packages are copies, not links", () => {
    expect(spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd: PROJECT }).status).not.toBe(0);
    for (const name of readdirSync(join(NODE_MODULES, "@outpost")))
      expect(lstatSync(join(NODE_MODULES, "@outpost", name)).isSymbolicLink(), name).toBe(false);
  });
});
