import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  affectedFeatures,
  cliRelease,
  compareVersions,
  firstVersionWith,
  parseCliVersion,
  probeCliVersion,
  type CliFeatureTable,
} from "../src/index.js";
import { hostTarget } from "./support/host-target.js";

const TABLE: CliFeatureTable<{ fork: boolean; flag: boolean }> = {
  agent: "demo",
  pinned: "1.4.0",
  tested: { oldest: "1.2.0", newest: "1.4.0" },
  rows: [
    { since: "1.0.0", features: { fork: false, flag: false } },
    { since: "1.3.0", features: { fork: true, flag: false } },
    { since: "1.4.0", features: { fork: true, flag: true } },
  ],
  unknown: { features: { fork: false, flag: false }, effect: "fork is refused" },
};

describe("CLI versions", () => {
  it("reads the version from what each CLI prints for --version", () => {
    expect(parseCliVersion("codex-cli 0.171.0")).toBe("0.171.0");
    expect(parseCliVersion("GitHub Copilot CLI 1.0.92.\nRun 'copilot update' to check for updates.")).toBe("1.0.92");
    expect(parseCliVersion("2.1.197 (Claude Code)")).toBe("2.1.197");
    expect(parseCliVersion("no version here")).toBeUndefined();
  });

  it("orders versions numerically, not as text", () => {
    expect(compareVersions("0.148.0", "0.99.0")).toBe(1);
    expect(compareVersions("1.0.92", "1.0.102")).toBe(-1);
    expect(compareVersions("1.17.18", "1.17.18")).toBe(0);
  });

  it("picks the row a version falls in; the first row also stands for older releases", () => {
    expect(cliRelease(TABLE, "1.3.5").features).toEqual({ fork: true, flag: false });
    expect(cliRelease(TABLE, "1.4.0").features).toEqual({ fork: true, flag: true });
    expect(cliRelease(TABLE, "0.9.0").features).toEqual({ fork: false, flag: false });
    expect(firstVersionWith(TABLE, (features) => features.fork)).toBe("1.3.0");
    expect(firstVersionWith(TABLE, () => false)).toBeUndefined();
  });

  it("warns with the tested range for a release outside it, naming what differs from the pinned release", () => {
    expect(cliRelease(TABLE, "1.3.0").warnings).toEqual([]);
    expect(cliRelease(TABLE, "1.1.0").warnings).toEqual([
      expect.stringMatching(
        /demo 1\.1\.0 is outside the tested range 1\.2\.0–1\.4\.0.*affected: fork \(from 1\.3\.0\), flag \(from 1\.4\.0\)/,
      ),
    ]);
    expect(cliRelease(TABLE, "2.0.0").warnings).toEqual([expect.stringMatching(/outside the tested range 1\.2\.0–1\.4\.0 .*verified\.$/)]);
    expect(affectedFeatures(TABLE, "1.3.2")).toEqual(["flag (from 1.4.0)"]);
  });

  it("uses the table's safe choices when the version is unknown, and says what that changes", () => {
    const release = cliRelease(TABLE, undefined, "`demo --version` did not answer within 2 s");
    expect(release.version).toBeUndefined();
    expect(release.features).toEqual({ fork: false, flag: false });
    expect(release.warnings).toEqual([
      expect.stringMatching(
        /the CLI version is unknown \(`demo --version` did not answer within 2 s\); fork is refused\. .*--agent-version/,
      ),
    ]);
  });
});

describe("probeCliVersion", () => {
  let bin: string;
  beforeAll(async () => {
    bin = await mkdtemp(join(tmpdir(), "outpost-cli-version-"));
    // Real executables: one counts its runs, to prove the probe runs once per executable.
    await writeFile(join(bin, "democli"), `#!/bin/sh\necho run >> "${join(bin, "runs")}"\necho "democli 1.3.7"\n`);
    await writeFile(join(bin, "silentcli"), "#!/bin/sh\nexit 3\n");
    await writeFile(join(bin, "slowcli"), "#!/bin/sh\nsleep 30\necho 'slowcli 9.9.9'\n");
    for (const name of ["democli", "silentcli", "slowcli"]) await chmod(join(bin, name), 0o755);
  });
  afterAll(async () => rm(bin, { recursive: true, force: true }));

  it("asks the executable found through the agent's PATH once, and knows the same file in another sandbox", async () => {
    const variables = { PATH: `${bin}:/usr/bin:/bin` };
    const first = hostTarget();
    expect(await probeCliVersion(first, { executable: "democli", variables })).toMatchObject({ version: "1.3.7", outcome: "known" });
    expect(await probeCliVersion(first, { executable: "democli", variables })).toMatchObject({ version: "1.3.7" });
    expect(first.runs).toHaveLength(2); // where it is, then --version
    const second = hostTarget();
    const again = await probeCliVersion(second, { executable: "democli", variables });
    expect(again).toMatchObject({ version: "1.3.7", identity: expect.stringContaining(join(bin, "democli")) });
    expect(second.runs).toHaveLength(1); // same identity: no second --version
    const { readFile } = await import("node:fs/promises");
    expect((await readFile(join(bin, "runs"), "utf8")).trim().split("\n")).toHaveLength(1);
  });

  it("in a sandbox without a shell, still asks --version (only the identity is lost)", async () => {
    const host = hostTarget();
    const shellless = {
      invoke: (command: Parameters<typeof host.invoke>[0]) =>
        command.executable === "sh" ? Promise.reject(new Error("spawn sh ENOENT")) : host.invoke(command),
    };
    const probe = await probeCliVersion(shellless, { executable: join(bin, "democli") });
    expect(probe).toMatchObject({ version: "1.3.7", outcome: "known" });
    expect(probe.identity).toBeUndefined();
  });

  it("tells a missing executable, an unreadable answer and a timeout apart", async () => {
    const target = hostTarget();
    expect(await probeCliVersion(target, { executable: join(bin, "missing-cli") })).toMatchObject({ outcome: "missing" });
    expect(await probeCliVersion(target, { executable: join(bin, "silentcli") })).toMatchObject({
      outcome: "unreadable",
      problem: expect.stringMatching(/printed no version \(exit 3\)/),
    });
    expect(await probeCliVersion(target, { executable: join(bin, "slowcli"), budgetMs: 300 })).toMatchObject({
      outcome: "timeout",
      problem: expect.stringMatching(/did not answer within/),
    });
  });
});
