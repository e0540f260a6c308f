import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLAUDE_CLI_VERSION, claudeAgent } from "@outpost/agent-claude";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { startModelServer } from "@outpost/testkit/model-server";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { demoScript } from "../src/demo/demo-script.js";
import { imageWithNpm } from "./support/npm-image.js";
import { startNpmRegistryDouble } from "./support/npm-registry-double.js";
import { packedPackage } from "./support/packed-package.js";

// The real Claude Code CLI, absent from the image (node and npm only), installed by bootstrap at the release
// the plugin pins, from a registry double on 127.0.0.1 serving the real tarballs (`npm pack`, from npm's cache),
// then run for a real turn against the scripted model server.
const gate = dockerGate();

(gate.unavailable ? describe.skip : describe)(
  `bootstrap of the real Claude Code CLI on Docker isolated${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("the CLI missing from the image is installed at its pinned version from the registry, then a real turn commits and integrates", async () => {
      const image = imageWithNpm(DOCKER_TEST_IMAGE);
      const tarballs = mkdtempSync(join(tmpdir(), "outpost-claude-pack-"));
      // The launcher and the one platform package npm picks here (the others are skipped as optional).
      const registry = await startNpmRegistryDouble([
        packedPackage("@anthropic-ai/claude-code", tarballs),
        packedPackage("@anthropic-ai/claude-code-linux-x64", tarballs),
      ]);
      const server = await startModelServer({ script: demoScript() });
      try {
        const repository = scratchRepository();
        const diagnostics: string[] = [];
        // Executable `claude` from PATH: the image has none, so bootstrap must install it.
        const agent = claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-test", maxRetries: 0, version: CLAUDE_CLI_VERSION });
        expect(agent.bootstrap).toBe("claude");
        const result = await dispatch({
          agent,
          brief: "Create hello.txt and commit it.",
          repository,
          sandboxProvider: dockerProvider({ image, mode: "isolated", network: "host", user: { uid: 0, gid: 0 }, homeSizeMb: 2048 }),
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
        expect(registry.requests).toContain(`/-/anthropic-ai-claude-code-${CLAUDE_CLI_VERSION}.tgz`);
        expect(registry.requests).toContain(`/-/anthropic-ai-claude-code-linux-x64-${CLAUDE_CLI_VERSION}.tgz`);
        // The installed CLI is the one that talked to the model.
        const agents = server.requests.map((request) => request.headers["user-agent"] ?? "");
        expect(agents.some((userAgent) => userAgent.startsWith(`claude-cli/${CLAUDE_CLI_VERSION}`))).toBe(true);
        expect(server.problems).toEqual([]);
      } finally {
        await Promise.all([server.close(), registry.close()]);
      }
    }, 600_000);
  },
);
