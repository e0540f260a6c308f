import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DESCRIPTOR_SPECIFICATION_VERSION, OutpostError, type AgentAdapter } from "@outpost/core";
import { afterAll, describe, expect, it } from "vitest";
import { dispatch } from "../src/index.js";
import { findProviderPlugin, installedProviders, withDefaultProvider, type ProviderDiscovery } from "../src/options/default-provider.js";

// sandboxProvider defaults to the Docker provider, found through plugin discovery (package.json "outpost"
// fields of installed packages), so the engine depends on no provider package; it is loaded only when left out.
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

/** A discovery that finds a docker plugin and loads `module` (or fails with what `module` rejects with). */
function discovery(module: object | Promise<never>): ProviderDiscovery {
  const plugin = {
    kind: "provider",
    name: "docker",
    packageName: "@outpost/provider-docker",
    directory: "/x",
    descriptorPath: ".",
    commands: {},
  } as const;
  return {
    find: (name) => (name === "docker" ? plugin : undefined),
    load: () => (module instanceof Promise ? module : Promise.resolve(module)),
  };
}

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

  it("is found through plugin discovery: a provider package named docker in a node_modules folder, by its package.json", async () => {
    const root = mkdtempSync(join(tmpdir(), "outpost-default-discovery-"));
    try {
      const plugin = join(root, "node_modules", "outpost-provider-docker");
      mkdirSync(plugin, { recursive: true });
      writeFileSync(
        join(plugin, "package.json"),
        JSON.stringify({ name: "outpost-provider-docker", outpost: { kind: "provider", descriptor: "." } }),
      );
      expect(findProviderPlugin("docker", [join(root, "node_modules")])).toMatchObject({
        kind: "provider",
        name: "docker",
        packageName: "outpost-provider-docker",
      });
      expect(findProviderPlugin("docker", [join(root, "elsewhere")])).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    // Beside the engine in this repository, discovery finds the workspace's own package.
    expect(installedProviders.find("docker")).toMatchObject({ packageName: "@outpost/provider-docker" });
  });

  it("builds the provider from the discovered plugin's descriptor, with no options", async () => {
    const built = { specificationVersion: "v1", name: "docker", placement: "mounted", acquire: () => Promise.reject(new Error("unused")) };
    const given: unknown[] = [];
    const descriptor = {
      specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
      kind: "provider",
      name: "docker",
      createProvider: (options: unknown) => (given.push(options), built),
    };
    const filled = await withDefaultProvider({ agent, brief: "x" }, discovery({ descriptor }));
    expect(filled.sandboxProvider).toBe(built);
    expect(given).toEqual([{}]);
  });

  it("when no docker provider is installed, fails with configuration naming the package to install", async () => {
    const error = await withDefaultProvider(
      { agent, brief: "x" },
      { find: () => undefined, load: () => Promise.reject(new Error("never")) },
    ).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(OutpostError);
    expect(error).toMatchObject({ code: "configuration" });
    expect((error as Error).message).toContain("npm install @outpost/provider-docker");
    expect((error as Error).message).toContain("pass sandboxProvider");
  });

  it("a plugin that fails to load, or has no matching descriptor, is a configuration error that says so", async () => {
    const broken = new SyntaxError("Unexpected token in provider-docker");
    const loadError = await withDefaultProvider({ agent, brief: "x" }, discovery(Promise.reject(broken))).catch(
      (failure: unknown) => failure,
    );
    expect(loadError).toMatchObject({ code: "configuration", cause: broken });
    expect((loadError as Error).message).toContain("Unexpected token in provider-docker");
    const noDescriptor = await withDefaultProvider({ agent, brief: "x" }, discovery({})).catch((failure: unknown) => failure);
    expect(noDescriptor).toMatchObject({ code: "configuration" });
    expect((noDescriptor as Error).message).toContain("does not match this engine");
    const otherVersion = { descriptor: { kind: "provider", name: "docker", specificationVersion: "v0", createProvider: () => ({}) } };
    const versionError = await withDefaultProvider({ agent, brief: "x" }, discovery(otherVersion)).catch((failure: unknown) => failure);
    expect(versionError).toMatchObject({ code: "configuration" });
  });

  it("a given provider is kept as it is", async () => {
    const sandboxProvider = {
      specificationVersion: "v1",
      name: "mine",
      placement: "host",
      acquire: () => Promise.reject(new Error("unused")),
    } as const;
    const never: ProviderDiscovery = {
      find: () => {
        throw new Error("never searched");
      },
      load: () => Promise.reject(new Error("never loaded")),
    };
    const filled = await withDefaultProvider({ agent, brief: "x", sandboxProvider }, never);
    expect(filled.sandboxProvider).toBe(sandboxProvider);
  });
});
