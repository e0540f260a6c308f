import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAUDE_CLI_VERSION, claudeAgent } from "@outpost/agent-claude";
import type { SandboxProvider } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { vercelProvider } from "@outpost/provider-vercel";
import { startVercelDouble } from "@outpost/cloud-doubles/vercel";
import { startModelServer } from "@outpost/testkit/model-server";
import { gitIn, scratchRepository } from "../src/index.js";
import { demoScript } from "../src/demo/demo-script.js";
import { startNpmRegistryDouble, type NpmRegistryDouble } from "./support/npm-registry-double.js";
import { packedPackage } from "./support/packed-package.js";

// Bootstrap on the cloud providers: the real SDKs against their API doubles, whose sandboxes get a system
// PATH only (no node_modules/.bin of this checkout), so `claude` is missing until bootstrap installs the
// pinned release from a registry double on 127.0.0.1; then a real turn commits and integrates.
const SYSTEM_PATH = { PATH: "/usr/local/bin:/usr/bin:/bin" };

let registry: NpmRegistryDouble;
beforeAll(async () => {
  const tarballs = mkdtempSync(join(tmpdir(), "outpost-claude-pack-"));
  registry = await startNpmRegistryDouble([
    packedPackage("@anthropic-ai/claude-code", tarballs),
    packedPackage("@anthropic-ai/claude-code-linux-x64", tarballs),
  ]);
}, 120_000);
afterAll(async () => {
  await registry?.close();
});

const platforms: readonly [string, () => Promise<{ provider: SandboxProvider; close(): Promise<void> }>][] = [
  [
    "Vercel",
    async () => {
      const double = await startVercelDouble();
      return {
        provider: vercelProvider({ ...double.credentials, fetch: double.fetch, create: { env: SYSTEM_PATH } }),
        close: () => double.close(),
      };
    },
  ],
  [
    "Daytona",
    async () => {
      const double = await startDaytonaDouble();
      return { provider: daytonaProvider({ ...double.credentials, create: { envVars: SYSTEM_PATH } }), close: () => double.close() };
    },
  ],
];

describe("bootstrap of the real Claude Code CLI on the cloud providers (API doubles)", () => {
  for (const [platform, start] of platforms) {
    it(`${platform}: the missing CLI is installed at its pinned version, then a real turn commits and integrates`, async () => {
      const { provider, close } = await start();
      const server = await startModelServer({ script: demoScript() });
      const before = registry.requests.length;
      try {
        const repository = scratchRepository();
        const diagnostics: string[] = [];
        const agent = claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-test", maxRetries: 0, version: CLAUDE_CLI_VERSION });
        const result = await dispatch({
          agent,
          brief: "Create hello.txt and commit it.",
          repository,
          sandboxProvider: provider,
          bootstrap: { registry: registry.url },
          diagnostic: (message) => diagnostics.push(message),
        });
        expect(result.completed).toBe(true);
        expect(result.commits).toHaveLength(1);
        expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("Add hello.txt");
        expect(readFileSync(join(repository, "hello.txt"), "utf8")).toContain("Hello");
        expect(
          diagnostics.some((message) =>
            message.startsWith(`bootstrap: installed @anthropic-ai/claude-code@${CLAUDE_CLI_VERSION} for claude`),
          ),
        ).toBe(true);
        expect(registry.requests.slice(before)).toContain(`/-/anthropic-ai-claude-code-${CLAUDE_CLI_VERSION}.tgz`);
        // The installed CLI is the one that talked to the model.
        const agents = server.requests.map((request) => request.headers["user-agent"] ?? "");
        expect(agents.some((userAgent) => userAgent.startsWith(`claude-cli/${CLAUDE_CLI_VERSION}`))).toBe(true);
        expect(server.problems).toEqual([]);
      } finally {
        await Promise.allSettled([server.close(), close()]);
      }
    }, 300_000);
  }
});
