import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { missingCli, pathWithClis } from "../support/cli-bin.js";
import { matrixReleases } from "../support/cli-matrix.js";

/** `outpost doctor` against the real CLIs: the pinned ones from node_modules, an older one from the matrix cache. */
const OUTPOST = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "cli", "bin", "outpost.cjs");
const codex = matrixReleases().find((release) => release.agent === "codex");

function doctor(env: Record<string, string>): Array<Record<string, unknown>> {
  const stdout = execFileSync(process.execPath, [OUTPOST, "doctor", "--json"], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.skipIf(missingCli("claude") !== undefined)("outpost doctor", () => {
  it("shows installed vs pinned vs tested for every agent", () => {
    const reports = doctor({ PATH: pathWithClis() });
    const agents = reports.filter((report) => report["type"] === "agent-cli");
    expect(agents.map((report) => report["agent"])).toEqual(["claude", "codex", "copilot", "gemini", "kimi", "opencode"]);
    for (const report of agents.filter((entry) => entry["agent"] !== "kimi")) {
      expect(report, String(report["agent"])).toMatchObject({
        status: "ok",
        installed: report["pinned"],
        tested: { newest: report["pinned"] },
      });
    }
    expect(agents.find((report) => report["agent"] === "kimi")).toMatchObject({ status: "untracked" });
    expect(reports.filter((report) => report["type"] === "provider").map((report) => report["provider"])).toEqual([
      "daytona",
      "docker",
      "local",
      "vercel",
    ]);
  }, 120_000);

  it.skipIf(codex?.missing !== undefined)(
    "names the release a chosen executable has, and a missing one as not found",
    () => {
      const reports = doctor({ PATH: "/usr/bin:/bin", OUTPOST_CODEX_EXECUTABLE: codex!.executable });
      expect(reports.find((report) => report["agent"] === "codex")).toMatchObject({
        installed: codex!.version,
        pinned: "0.171.0",
        status: "ok",
      });
      expect(reports.find((report) => report["agent"] === "claude")).toMatchObject({
        status: "not-found",
        problem: expect.stringContaining("ENOENT"),
      });
    },
    120_000,
  );
});
