import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapter, SandboxProvider } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { dispatch } from "../src/index.js";

// dispatch() checks every plugin's specificationVersion before anything is allocated.
const acquired: string[] = [];
const provider = (version: unknown): SandboxProvider => ({
  specificationVersion: version as "v1",
  name: "counting",
  placement: "host",
  acquire: async () => {
    acquired.push("acquire");
    throw new Error("a provider of the wrong version must never be asked for a sandbox");
  },
});
const agent = (version: unknown, storage?: object): AgentAdapter => ({
  kind: "cli",
  specificationVersion: version as "v1",
  name: "versioned",
  executable: "true",
  command: () => ({ executable: "true", arguments: [], variables: {} }),
  createDecoder: () => ({ decode: () => [] }),
  ...(storage ? { storage: storage as AgentAdapter["storage"] } : {}),
});
const repository = mkdtempSync(join(tmpdir(), "outpost-versions-"));

describe("dispatch() refuses plugins of another contract version", () => {
  it.each([
    ["an agent of version v2", agent("v2"), provider("v1"), 'The agent adapter "versioned" declares specificationVersion "v2"'],
    ["an agent of version v1.1", agent("v1.1"), provider("v1"), 'The agent adapter "versioned" declares specificationVersion "v1.1"'],
    ["a provider of version v0", agent("v1"), provider("v0"), 'The sandbox provider "counting" declares specificationVersion "v0"'],
    [
      "a store of version v0",
      agent("v1", {
        specificationVersion: "v0",
        name: "old-store",
        locate: async () => ({}),
        capture: async () => ({}),
        restore: async () => undefined,
      }),
      provider("v1"),
      'The conversation store "old-store" declares specificationVersion "v0"',
    ],
  ])("%s: code configuration naming it and the supported versions, nothing allocated", async (_, theAgent, theProvider, message) => {
    const error = await dispatch({ agent: theAgent, sandboxProvider: theProvider, brief: "x", repository }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toMatchObject({ code: "configuration" });
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).toContain('supports "v1"');
    expect(acquired).toEqual([]);
  });
});
