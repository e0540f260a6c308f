import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cliRelease,
  cliReleaseResolver,
  compareVersions,
  firstVersionWith,
  learnCliVersion,
  parseCliVersion,
  type CliFeatureTable,
} from "../src/index.js";

const TABLE: CliFeatureTable<{ fork: boolean; flag: boolean }> = {
  agent: "demo",
  pinned: "1.4.0",
  tested: { oldest: "1.2.0", newest: "1.4.0" },
  rows: [
    { since: "1.0.0", features: { fork: false, flag: false } },
    { since: "1.3.0", features: { fork: true, flag: false } },
    { since: "1.4.0", features: { fork: true, flag: true } },
  ],
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

  it("warns with the tested range for a release outside it, and runs it anyway", () => {
    expect(cliRelease(TABLE, "1.3.0").warnings).toEqual([]);
    expect(cliRelease(TABLE, "1.1.0").warnings).toEqual([
      expect.stringMatching(/demo 1\.1\.0 is outside the tested range 1\.2\.0–1\.4\.0/),
    ]);
    expect(cliRelease(TABLE, "2.0.0").warnings).toEqual([expect.stringMatching(/outside the tested range 1\.2\.0–1\.4\.0/)]);
  });

  it("assumes the pinned release, with a warning, when the version is unknown", () => {
    const release = cliRelease(TABLE, undefined, "not installed");
    expect(release.version).toBeUndefined();
    expect(release.features).toEqual({ fork: true, flag: true });
    expect(release.warnings).toEqual([
      expect.stringMatching(/could not learn the CLI version \(not installed\); assuming the pinned 1\.4\.0/),
    ]);
  });
});

describe("learnCliVersion", () => {
  let bin: string;
  beforeAll(async () => {
    bin = await mkdtemp(join(tmpdir(), "outpost-cli-version-"));
    // A real executable that counts its runs, to prove the probe runs once per executable.
    await writeFile(join(bin, "democli"), `#!/bin/sh\necho run >> "${join(bin, "runs")}"\necho "democli 1.3.7"\n`);
    await writeFile(join(bin, "silentcli"), "#!/bin/sh\nexit 3\n");
    await chmod(join(bin, "democli"), 0o755);
    await chmod(join(bin, "silentcli"), 0o755);
  });
  afterAll(async () => rm(bin, { recursive: true, force: true }));

  it("asks the executable once (found through the agent's PATH) and caches the answer", async () => {
    const variables = { PATH: `${bin}:/usr/bin:/bin` };
    expect(learnCliVersion("democli", variables)).toEqual({ version: "1.3.7" });
    expect(learnCliVersion("democli", variables)).toEqual({ version: "1.3.7" });
    const { readFile } = await import("node:fs/promises");
    expect((await readFile(join(bin, "runs"), "utf8")).trim().split("\n")).toHaveLength(1);
  });

  it("says why when there is no version to learn", () => {
    expect(learnCliVersion(join(bin, "missing-cli")).problem).toMatch(/ENOENT/);
    expect(learnCliVersion(join(bin, "silentcli")).problem).toMatch(/printed no version \(exit 3\)/);
  });

  it("a given version skips the probe; a resolver learns lazily and once", () => {
    const given = cliReleaseResolver(TABLE, { executable: join(bin, "missing-cli"), version: "1.2.3" });
    expect(given()).toMatchObject({ version: "1.2.3", features: { fork: false }, warnings: [] });
    const learned = cliReleaseResolver(TABLE, { executable: join(bin, "democli") });
    expect(learned()).toBe(learned());
    expect(learned().version).toBe("1.3.7");
  });
});
