import { mkdtempSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentLineDecoder, CliFeatureTable, ConversationStore } from "@outpost/core";
import { cliAgent, uuidSessionId, type CliAgentDefinition } from "../src/index.js";

interface FakeFeatures {
  readonly fork: boolean;
}

const FEATURES: CliFeatureTable<FakeFeatures> = {
  agent: "fake",
  pinned: "2.0.0",
  tested: { oldest: "1.0.0", newest: "2.0.0" },
  rows: [
    { since: "1.0.0", features: { fork: false } },
    { since: "2.0.0", features: { fork: true } },
  ],
};

const STORE = { specificationVersion: "v1", name: "fake" } as unknown as ConversationStore;
const DECODER: AgentLineDecoder = { decode: () => [] };

function definition(overrides: Partial<CliAgentDefinition<FakeFeatures>> = {}): CliAgentDefinition<FakeFeatures> {
  return {
    name: "fake",
    options: {},
    variables: { FAKE_QUIET: "1" },
    features: FEATURES,
    cli: { npmPackage: "fake-cli", version: "2.0.0" },
    requiresFinishedEvent: true,
    usage: "events",
    forkable: (agent) => agent.release().features.fork,
    storage: () => STORE,
    failureRules: [],
    command: (turn, agent) => ({ executable: agent.executable, arguments: [], variables: agent.variables, directory: turn.root }),
    decoder: () => DECODER,
    ...overrides,
  };
}

describe("cliAgent", () => {
  // A fake CLI: each `--version` leaves a line in `calls`, so the test sees when (and how often) the release is probed.
  const folder = mkdtempSync(join(tmpdir(), "outpost-cli-agent-"));
  const cli = join(folder, "fake-cli");
  const calls = join(folder, "calls");
  beforeAll(() => writeFile(cli, `#!/bin/sh\necho probed >> '${calls}'\necho "fake-cli 1.5.0"\n`, { mode: 0o755 }));
  afterAll(() => rm(folder, { recursive: true, force: true }));

  const probes = async () => (await readFile(calls, "utf8").catch(() => "")).split("\n").filter(Boolean).length;

  it("builds the shared shape: name, executable, bootstrap, frozen variables, resumable, v1", () => {
    const agent = cliAgent(definition({ options: { executable: "/opt/fake", version: "2.0.0" } }));
    expect(agent).toMatchObject({
      kind: "cli",
      specificationVersion: "v1",
      name: "fake",
      executable: "/opt/fake",
      bootstrap: "fake",
      cli: { npmPackage: "fake-cli", version: "2.0.0" },
      requiresFinishedEvent: true,
      usage: "events",
      resumable: true,
      variables: { FAKE_QUIET: "1" },
      storage: STORE,
    });
    expect(Object.isFrozen(agent.variables)).toBe(true);
    expect(agent.command({ prompt: "p", root: "/w", home: "/h" })).toMatchObject({ executable: "/opt/fake", directory: "/w" });
    for (const absent of ["liveInput", "homeFiles", "unsupported", "transcriptUsage", "namesConversations"])
      expect(agent).not.toHaveProperty(absent);
  });

  it("never probes: the release comes from the lease (a turn's cliVersion), its warnings through cliWarnings", async () => {
    const agent = cliAgent(definition({ options: { executable: cli } }));
    expect(agent.cliVersion).toEqual({});
    expect(agent.forkable).toBeUndefined(); // decided once the lease tells the version
    expect(agent.createDecoder()).toBe(DECODER);
    expect(agent.cliWarnings?.({ version: "1.5.0" })).toEqual([]);
    expect(agent.cliWarnings?.({ problem: "slow" })).toEqual([expect.stringMatching(/fake: the CLI version is unknown \(slow\)/)]);
    expect(await probes()).toBe(0);
  });

  it("takes a given version without probing, and warns about one outside the tested range", async () => {
    const before = await probes();
    const agent = cliAgent(definition({ options: { executable: cli, version: "3.1.0" } }));
    expect(agent.cliVersion).toEqual({ given: "3.1.0" });
    expect(agent.forkable).toBe(true);
    expect((agent.cliWarnings?.({}) ?? []).join("\n")).toMatch(/fake 3\.1\.0 is outside the tested range/);
    expect(await probes()).toBe(before);
    expect(() => cliAgent(definition({ options: { executable: cli, version: "three" } }))).toThrow(
      expect.objectContaining({ code: "configuration", message: expect.stringMatching(/--agent-version/) }),
    );
  });

  it("without a feature table never probes, and installs nothing without a pinned CLI", async () => {
    const before = await probes();
    const { features: _features, cli: _cli, ...rest } = definition({ forkable: false, options: { executable: cli } });
    const agent = cliAgent(rest);
    expect(agent).not.toHaveProperty("bootstrap");
    expect(agent).not.toHaveProperty("cli");
    expect(agent.forkable).toBe(false);
    agent.createDecoder({ diagnostic: () => expect.fail("no release, no warning") });
    expect(await probes()).toBe(before);
  });
});

describe("uuidSessionId", () => {
  it("passes a UUID and refuses anything else as configuration, naming the CLI and the field", () => {
    const id = "0cb916db-26aa-40f2-86b5-1ba81b225fd2";
    expect(uuidSessionId("Fake CLI", id, "resume")).toBe(id);
    for (const hostile of ["--help", "", `${id}\n`, "../x", id.slice(1)]) {
      expect(() => uuidSessionId("Fake CLI", hostile, "resume")).toThrow(
        expect.objectContaining({ code: "configuration", message: expect.stringMatching(/^Fake CLI session ids are UUIDs; resume /) }),
      );
    }
  });
});
