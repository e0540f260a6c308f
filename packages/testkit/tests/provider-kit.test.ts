import { readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeSandboxProvider, type DescribeSandboxProviderOptions } from "../src/index.js";
import { recordedSuite } from "./provider-recorded-suite.js";
import { referenceProvider, type ReferenceFlaws } from "./provider-reference.js";

const TRANSFERS_UNSUPPORTED = { fileTransfers: "the reference provider keeps no manifests" };

/** Registers the suite on a recording runner, for a reference provider with the given flaws. */
function suiteFor(flaws: ReferenceFlaws, options: Partial<DescribeSandboxProviderOptions> = {}) {
  const recorded = recordedSuite();
  describeSandboxProvider({
    name: "reference",
    create: async () => ({ provider: referenceProvider(flaws) }),
    unsupported: TRANSFERS_UNSUPPORTED,
    runner: recorded.runner,
    ...options,
  });
  return recorded;
}

/** Failure messages of the cases whose title contains one of `parts`, keyed by the matching part. */
async function failures(flaws: ReferenceFlaws, parts: readonly string[], options: Partial<DescribeSandboxProviderOptions> = {}) {
  const failed = await suiteFor(flaws, options).run((title) => parts.some((part) => title.includes(part)));
  return new Map([...failed].map(([title, error]) => [parts.find((part) => title.includes(part))!, error.message]));
}

describe("describeSandboxProvider registration", () => {
  it("names the suite, each group and each check", () => {
    const { cases } = suiteFor({}, { unsupported: {} });
    const groups = new Set(cases.map((test) => test.title.split(" > ")[1]));
    expect(cases[0]!.title.startsWith("sandbox provider conformance: reference > ")).toBe(true);
    expect([...groups]).toEqual(["capabilities", "exec", "live input", "deadline and abort", "upload and download", "file transfers", "lifecycle"]);
    expect(cases.length).toBe(35);
    expect(cases.every((test) => !test.skipped)).toBe(true);
  });

  it("registers one named skip when the environment is unavailable", () => {
    const { cases } = suiteFor({}, { unavailable: { reason: "no daemon reachable" } });
    expect(cases).toEqual([{ title: "sandbox provider conformance: reference > unavailable: no daemon reachable", skipped: true }]);
  });

  it("turns unsupported capabilities into named skips; uploadBatch follows fileTransfers", () => {
    const { cases } = suiteFor({}, { unsupported: { liveInput: "no stdin channel", fileTransfers: "no manifests" } });
    const skipped = cases.filter((test) => test.skipped).map((test) => test.title.split(" > ").at(-1));
    expect(skipped).toHaveLength(7);
    expect(skipped.filter((title) => title!.endsWith("(unsupported: no stdin channel)"))).toHaveLength(1);
    expect(skipped.filter((title) => title!.endsWith("(unsupported: no manifests)"))).toHaveLength(6);
    const uploadOnly = suiteFor({}, { unsupported: { uploadBatch: "download only" } }).cases.filter((test) => test.skipped);
    expect(uploadOnly.map((test) => test.title)).toEqual([
      expect.stringContaining("uploadBatch moves exactly the listed entries, verified (unsupported: download only)"),
      expect.stringContaining("uploadBatch refuses a wrong SHA-256 and entries that escape, writing nothing (unsupported: download only)"),
    ]);
  });
});

describe("describeSandboxProvider against a correct reference provider", () => {
  it("passes every check but the transfer refusals, which its naive cp -a copies cannot pass", async () => {
    const recorded = suiteFor({});
    const refusal = (title: string) => title.includes("upload and download > refuses");
    const failed = await recorded.run((title) => !refusal(title));
    expect([...failed].map(([title, error]) => `${title}: ${error.message}`)).toEqual([]);
    expect(recorded.cases.filter((test) => !test.skipped && !refusal(test.title)).length).toBe(24);
  }, 120_000);
});

describe("describeSandboxProvider catches broken providers", () => {
  it("fails when a capability the lease has is declared unsupported", async () => {
    const failed = await failures({}, ["declares its unsupported capabilities truthfully"], { unsupported: { ...TRANSFERS_UNSUPPORTED, liveInput: "claimed missing" } });
    expect(failed.get("declares its unsupported capabilities truthfully")).toMatch(/liveInput is declared unsupported \("claimed missing"\) but the lease has it/);
  });

  it("fails when the lease lacks a capability that is not declared unsupported", async () => {
    const failed = await failures({ liveInput: false }, ["declares its unsupported capabilities truthfully", "feeds live input"]);
    expect(failed.get("declares its unsupported capabilities truthfully")).toMatch(/the lease lacks liveInput but it is not declared unsupported/);
    const transfers = await failures({ fileTransfers: false }, ["declares its unsupported capabilities truthfully"], { unsupported: {} });
    expect(transfers.get("declares its unsupported capabilities truthfully")).toMatch(/lacks fileTransfers.*lacks uploadBatch/);
  });

  it("fails when a fileTransfers without uploadBatch is not declared", async () => {
    const failed = await failures({ fileTransfers: true }, ["declares its unsupported capabilities truthfully"], { unsupported: {} });
    expect(failed.get("declares its unsupported capabilities truthfully")).toMatch(/lacks uploadBatch/);
  });

  it("fails the deadline and abort checks when only the leader is killed", async () => {
    const failed = await failures({ killLeaderOnly: true }, ["deadlineMs kills the whole tree", "an aborted signal kills the whole tree"]);
    expect(failed.get("deadlineMs kills the whole tree")).toMatch(/processes of the stopped tree still run/);
    expect(failed.get("an aborted signal kills the whole tree")).toMatch(/processes of the stopped tree still run/);
  }, 60_000);

  it("fails every transfer refusal check against copies that follow links and accept ../", async () => {
    const recorded = suiteFor({});
    const refusals = recorded.cases.filter((test) => test.title.includes("upload and download > refuses"));
    expect(refusals).toHaveLength(5);
    try {
      const failed = await recorded.run((title) => title.includes("upload and download > refuses"));
      expect([...failed.keys()].sort()).toEqual(refusals.map((test) => test.title).sort());
    } finally {
      // The naive copy really wrote beside the workspace: remove what this process left there.
      const ours = (await readdir(tmpdir())).filter((name) => name.startsWith(`outpost-kit-escape-${process.pid}-`));
      await Promise.all(ours.map((name) => rm(join(tmpdir(), name), { recursive: true, force: true })));
    }
  }, 60_000);

  it("fails the stream check when stderr is mixed into stdout", async () => {
    const failed = await failures({ mergeStreams: true }, ["keeps stdout and stderr apart"]);
    expect(failed.get("keeps stdout and stderr apart")).toBeDefined();
  });

  it("fails the observe check when an observer's exception breaks the command", async () => {
    const failed = await failures({ observeEscapes: true }, ["an exception thrown in observe"]);
    expect(failed.get("an exception thrown in observe")).toMatch(/observer failure the kit throws on purpose/);
  });
});
