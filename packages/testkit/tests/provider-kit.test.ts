import { readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeSandboxProvider, type DescribeSandboxProviderOptions } from "../src/index.js";
import { recordedSuite } from "./provider-recorded-suite.js";
import { referenceProvider, sweepReferenceStragglers, type ReferenceFlaws } from "./provider-reference.js";

/** Registers the suite on a recording runner, for a reference provider with the given flaws. */
function suiteFor(flaws: ReferenceFlaws, options: Partial<DescribeSandboxProviderOptions> = {}) {
  const recorded = recordedSuite();
  describeSandboxProvider({
    name: "reference",
    create: async () => ({ provider: referenceProvider(flaws) }),
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
    expect([...groups]).toEqual([
      "capabilities",
      "exec",
      "environment",
      "live input",
      "deadline and abort",
      "upload and download",
      "sandbox paths",
      "file transfers",
      "lifecycle",
      "hostile trees",
    ]);
    expect(cases.length).toBe(65);
    expect(cases.every((test) => !test.skipped)).toBe(true);
  });

  it("registers one named skip when the environment is unavailable", () => {
    const { cases } = suiteFor({}, { unavailable: { reason: "no daemon reachable" } });
    expect(cases).toEqual([{ title: "sandbox provider conformance: reference > unavailable: no daemon reachable", skipped: true }]);
  });

  it("turns unsupported capabilities into named skips; uploadBatch follows fileTransfers", () => {
    const { cases } = suiteFor({}, { unsupported: { liveInput: "no stdin channel", fileTransfers: "no manifests" } });
    const skipped = cases.filter((test) => test.skipped).map((test) => test.title.split(" > ").at(-1));
    expect(skipped).toHaveLength(14);
    expect(skipped.filter((title) => title!.endsWith("(unsupported: no stdin channel)"))).toHaveLength(1);
    expect(skipped.filter((title) => title!.endsWith("(unsupported: no manifests)"))).toHaveLength(13);
    const uploadOnly = suiteFor({}, { unsupported: { uploadBatch: "download only" } }).cases.filter((test) => test.skipped);
    expect(uploadOnly.map((test) => test.title)).toEqual([
      expect.stringContaining("uploadBatch moves exactly the listed entries, verified (unsupported: download only)"),
      expect.stringContaining("uploadBatch refuses a wrong SHA-256 and entries that escape, writing nothing (unsupported: download only)"),
      expect.stringContaining(
        "uploadBatch whose third entry fails its SHA-256 writes nothing, not even directories (unsupported: download only)",
      ),
      expect.stringContaining(
        "uploadBatch refuses to write through a link in the sandbox destination (code workspace) (unsupported: download only)",
      ),
    ]);
  });

  it("refuses a create() that resolves the wrong shape, saying what to return", async () => {
    const bare = suiteFor({}, { create: async () => referenceProvider() as never });
    await expect(bare.run()).rejects.toThrow(
      /create\(\) must resolve \{ provider, dispose\? \}.*it resolved the provider itself: wrap it as \{ provider \}/,
    );
    const broken = suiteFor(
      {},
      { create: async () => ({ provider: { name: "x", placement: "cloud", acquire: async () => undefined } }) as never },
    );
    await expect(broken.run()).rejects.toThrow(/`provider.placement` is "cloud", not one of host, mounted, remote/);
  });
});

// Checks that take a second or more (sleeps, 400-file and 4 MiB transfers); a flaw's run includes them
// only when it targets them. "passes every check" above runs them all against the correct reference.
const SLOW = [
  "kills the whole tree",
  "release() ends the grandchildren",
  "closed its pipes early",
  "an exception thrown in observe",
  "runs several commands",
  "4 MiB",
  "deadlineMs stops an upload",
  "an abort while an upload",
  "deadlineMs stops a manifest",
  "goes on after a pause",
  "left running in the background",
  "split at every byte offset",
];

/** Runs every check (the slow ones only when `expected` names them) and returns the failures by title. */
async function failedChecks(flaws: ReferenceFlaws, expected: readonly string[]) {
  const wanted = (title: string) => !SLOW.some((slow) => title.includes(slow)) || expected.some((part) => title.includes(part));
  try {
    return await suiteFor(flaws).run(wanted);
  } finally {
    sweepReferenceStragglers();
  }
}

describe("describeSandboxProvider against a correct reference provider", () => {
  it("passes every check", async () => {
    const recorded = suiteFor({});
    const failed = await recorded.run();
    expect([...failed].map(([title, error]) => `${title}: ${error.message}`)).toEqual([]);
    expect(recorded.cases.filter((test) => !test.skipped).length).toBe(65);
  }, 180_000);
});

/** One flaw per new check: exactly the named checks fail, each with a message that says what differed. */
const FLAWED: readonly { flaw: ReferenceFlaws; fails: Record<string, RegExp> }[] = [
  {
    flaw: { absolutePathsAnywhere: true },
    fails: {
      "refuses absolute transfer paths outside root and home":
        /upload to .*outpost-kit-elsewhere-.*planted\.txt \(outside root and home\): expected a rejection with code "workspace", but it resolved/,
      "fileTransfers refuse sources and destinations outside root and home":
        /manifest of .*outpost-kit-elsewhere-.* \(outside root and home\): expected a rejection/,
    },
  },
  {
    flaw: { transfersDropModes: true },
    fails: {
      "round-trips a tree": /the uploaded tree differs inside the sandbox:\n {2}tool\.sh lost its execute bits \(0751 expected\)$/,
      "downloadBatch moves exactly the listed entries":
        /downloadBatch moved a different set of entries:\n {2}"deep\/deeper\/leaf\.txt" has mode 0644, expected 0640\n {2}"tool\.sh" has mode 0644, expected 0751$/,
      "uploads a 4 MiB binary file": /the downloaded file lost its mode[\s\S]*0644[\s\S]*0751/,
      "manifest lists files and links": /the manifest differs from the host tree:[\s\S]*has mode 0644, expected 0/,
      "a download never brings setuid, setgid or sticky bits": /root-shell came back with mode 0644/,
    },
  },
  {
    flaw: { transfersKeepSpecialBits: true },
    fails: {
      "a download never brings setuid, setgid or sticky bits": /root-shell came back with mode 04755 \(only the permission bits travel\)/,
      "manifest and downloadBatch carry permission bits only": /the manifest reports bits that never travel/,
    },
  },
  {
    flaw: { transfersLoseEmptyDirectories: true },
    fails: {
      "round-trips a tree":
        /the uploaded tree differs inside the sandbox:\n {2}lost directory empty\n {2}lost directory deep\/deeper\/empty too$/,
    },
  },
  {
    flaw: { downloadFollowsDotDot: true },
    fails: {
      "refuses to download a real file through ../":
        /download of the real file \.\.\/.*secret\.txt: expected a rejection with code "workspace", but it resolved/,
    },
  },
  {
    flaw: { downloadFollowsLinks: true },
    fails: {
      "through a link that leaves the root":
        /download of exit-directory\/secret\.txt \(through a link leaving the root\): expected a rejection/,
    },
  },
  {
    flaw: { homeElsewhere: true },
    fails: {
      "runs commands with HOME = lease.home": /HOME differs from lease\.home/,
      "keeps HOME = lease.home when the acquire() context": /a context variable replaced HOME/,
    },
  },
  {
    flaw: { homeFromContext: true },
    fails: {
      "keeps HOME = lease.home when the acquire() context": /a context variable replaced HOME.*\n[\s\S]*outpost-kit-home-from-context/,
    },
  },
  {
    flaw: { ignoreProviderVariables: true },
    fails: { "passes provider.variables to every command": /the commands did not get provider\.variables/ },
  },
  {
    flaw: { releaseKeepsStragglers: true },
    fails: { "release() ends the grandchildren": /still running: the grandchild in a new session \(setsid\)/ },
  },
  {
    flaw: { acceptsInteractive: true },
    fails: { "attaches a terminal for `interactive`": /accepted `interactive` but attached no terminal/ },
  },
  {
    flaw: { transfersIgnoreDeadline: true },
    fails: {
      "deadlineMs stops an upload and a download in progress":
        /an upload of 400 files with deadlineMs 1: expected a rejection with code "timeout", but it resolved/,
      "deadlineMs stops a manifest": /a manifest of 400 files with deadlineMs 1: expected a rejection with code "timeout", but it resolved/,
    },
  },
  {
    flaw: { transfersCheckAbortOnlyAtStart: true },
    fails: {
      "an abort while an upload or a download runs":
        /an upload aborted while it ran: expected a rejection with code "aborted", but it resolved/,
      "deadlineMs stops a manifest": /a downloadBatch aborted while it ran: expected a rejection with code "aborted", but it resolved/,
    },
  },
  {
    flaw: { batchWritesAsItGoes: true },
    fails: {
      "downloadBatch whose third entry fails": /a refused downloadBatch left these behind[\s\S]*directory deep/,
      "uploadBatch whose third entry fails": /a refused uploadBatch left these behind: \.\/deep/,
    },
  },
  {
    flaw: { batchFollowsDestinationLinks: true },
    fails: {
      "downloadBatch refuses to write through a link":
        /downloadBatch into a destination whose sub\/ is a link leading outside: expected a rejection/,
      "uploadBatch refuses to write through a link":
        /uploadBatch into a destination whose sub\/ is a link leading outside: expected a rejection/,
    },
  },
];

describe("describeSandboxProvider catches each flaw with exactly the check made for it", () => {
  it.each(FLAWED.map((entry) => [Object.keys(entry.flaw)[0]!, entry] as const))(
    "%s",
    async (_name, { flaw, fails }) => {
      const expected = Object.keys(fails);
      const failed = await failedChecks(flaw, expected);
      const titles = [...failed.keys()];
      expect(
        titles
          .map((title) => expected.find((part) => title.includes(part)) ?? `unexpected failure: ${title}: ${failed.get(title)!.message}`)
          .sort(),
      ).toEqual([...expected].sort());
      for (const [title, error] of failed) expect(error.message).toMatch(fails[expected.find((part) => title.includes(part))!]!);
    },
    120_000,
  );
});

describe("describeSandboxProvider catches broken providers", () => {
  it("fails when a capability the lease has is declared unsupported", async () => {
    const failed = await failures({}, ["declares its unsupported capabilities truthfully"], {
      unsupported: { liveInput: "claimed missing" },
    });
    expect(failed.get("declares its unsupported capabilities truthfully")).toMatch(
      /liveInput is declared unsupported \("claimed missing"\) but the lease has it/,
    );
  });

  it("fails when the lease lacks a capability that is not declared unsupported", async () => {
    const failed = await failures({ liveInput: false }, ["declares its unsupported capabilities truthfully", "feeds live input"]);
    expect(failed.get("declares its unsupported capabilities truthfully")).toMatch(
      /the lease lacks liveInput but it is not declared unsupported/,
    );
    const transfers = await failures({ fileTransfers: "none" }, ["declares its unsupported capabilities truthfully"]);
    expect(transfers.get("declares its unsupported capabilities truthfully")).toMatch(/lacks fileTransfers.*lacks uploadBatch/);
  });

  it("fails when a fileTransfers without uploadBatch is not declared", async () => {
    const failed = await failures({ fileTransfers: "without uploadBatch" }, ["declares its unsupported capabilities truthfully"]);
    expect(failed.get("declares its unsupported capabilities truthfully")).toMatch(/lacks uploadBatch/);
  });

  it("fails the deadline and abort checks when only the leader is killed", async () => {
    const failed = await failures({ killLeaderOnly: true }, ["deadlineMs kills the whole tree", "an aborted signal kills the whole tree"]);
    expect(failed.get("deadlineMs kills the whole tree")).toMatch(/processes of the stopped tree still run/);
    expect(failed.get("an aborted signal kills the whole tree")).toMatch(/processes of the stopped tree still run/);
  }, 60_000);

  it("fails every transfer refusal check against copies that follow links and accept ../", async () => {
    const recorded = suiteFor({ naiveTransfers: true });
    const refusals = recorded.cases.filter(
      (test) => test.title.includes("upload and download > refuses") || test.title.includes("sandbox paths > refuses"),
    );
    expect(refusals).toHaveLength(8);
    try {
      const failed = await recorded.run((title) => refusals.some((test) => test.title === title));
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

  it("fails the split-character check when each chunk is decoded on its own", async () => {
    const part = "split at every byte offset";
    const failed = await failures({ decodesChunksApart: true }, [part]);
    expect(failed.get(part)).toMatch(/stdout differs \(a character split between chunks/);
  });

  it("fails the pause check when a silent stream is taken as the end of the command", async () => {
    const part = "goes on after a pause";
    const failed = await failures({ endsAtSilence: true }, [part]);
    expect(failed.get(part)).toMatch(/exit status was 0; expected 5 \(stdout: 30 lines, not the last words\)/);
  }, 60_000);

  it("fails the background check when what a command left running dies with it", async () => {
    const part = "left running in the background";
    const failed = await failures({ killsBackgroundAfterCommand: true }, [part]);
    expect(failed.get(part)).toMatch(/the background process \d+ died before release\(\)/);
  }, 60_000);

  it("fails the home check when the home lies inside root", async () => {
    const part = "keeps home outside root";
    const failed = await failures({ homeInsideRoot: true }, [part]);
    expect(failed.get(part)).toMatch(/lies inside root .*: give root a folder of its own/);
  });

  it("fails the observe check when an observer's exception breaks the command", async () => {
    const failed = await failures({ observeEscapes: true }, ["an exception thrown in observe"]);
    expect(failed.get("an exception thrown in observe")).toMatch(/observer failure the kit throws on purpose/);
  });
});
