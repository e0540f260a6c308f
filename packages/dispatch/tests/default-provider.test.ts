import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapter } from "@outpost/core";
import { afterAll, describe, expect, it } from "vitest";
import { dispatch } from "../src/index.js";
import { withDefaultProvider } from "../src/options/default-provider.js";

// Seed 004: sandboxProvider defaults to the Docker provider; the engine loads it only when it is left out.
const agent: AgentAdapter = {
  kind: "cli",
  specificationVersion: "v1",
  name: "echo",
  executable: "true",
  command: () => ({ executable: "true", arguments: [], variables: {} }),
  createDecoder: () => ({ decode: () => [] }),
};
const repository = mkdtempSync(join(tmpdir(), "outpost-default-provider-"));
chmodSync(repository, 0o777); // any container user may write it: the engine, not the owner check, is what fails
writeFileSync(join(repository, "README.md"), "seed\n");
for (const args of [
  ["init", "-q", "-b", "main"],
  ["add", "README.md"],
  ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "seed"],
])
  execFileSync("git", args, { cwd: repository });
afterAll(() => rmSync(repository, { recursive: true, force: true }));

describe("the default sandbox provider", () => {
  it("is the Docker provider when sandboxProvider is left out", async () => {
    const filled = await withDefaultProvider({ agent, brief: "x" });
    expect(filled.sandboxProvider).toMatchObject({ name: "docker", specificationVersion: "v1" });
  });

  it("is asked for the sandbox by dispatch(): an unreachable engine fails as Docker, not as a missing option", async () => {
    const previous = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `unix://${join(repository, "no-such-docker.sock")}`;
    try {
      const error = await dispatch({ agent, brief: "x", repository }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toMatchObject({ code: "provider" });
      expect((error as Error).message).toContain("no Docker engine is reachable");
      expect((error as Error).message).toContain("failed phase: sandbox");
    } finally {
      if (previous === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = previous;
    }
    expect(execFileSync("git", ["branch", "--list"], { cwd: repository, encoding: "utf8" }).trim()).toBe("* main");
  }, 60_000);

  it("when its package is not installed, fails with configuration naming the package to install", async () => {
    const missing = Object.assign(new Error("Cannot find package '@outpost/provider-docker'"), { code: "ERR_MODULE_NOT_FOUND" });
    const error = await withDefaultProvider({ agent, brief: "x" }, () => Promise.reject(missing)).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: "configuration", cause: missing });
    expect((error as Error).message).toContain("npm install @outpost/provider-docker");
    expect((error as Error).message).toContain("pass sandboxProvider");
  });

  it("a broken provider package is not mistaken for a missing one", async () => {
    const broken = new SyntaxError("Unexpected token in provider-docker");
    await expect(withDefaultProvider({ agent, brief: "x" }, () => Promise.reject(broken))).rejects.toBe(broken);
    const error = await withDefaultProvider({ agent, brief: "x" }, () => Promise.resolve({})).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: "configuration" });
    expect((error as Error).message).toContain("does not export dockerProvider()");
  });

  it("a given provider is kept as it is", async () => {
    const sandboxProvider = {
      specificationVersion: "v1",
      name: "mine",
      placement: "host",
      acquire: () => Promise.reject(new Error("unused")),
    } as const;
    const filled = await withDefaultProvider({ agent, brief: "x", sandboxProvider }, () => Promise.reject(new Error("never loaded")));
    expect(filled.sandboxProvider).toBe(sandboxProvider);
  });
});
