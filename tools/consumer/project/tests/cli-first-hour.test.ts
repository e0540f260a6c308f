import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { describe, expect, it } from "vitest";
import { claudeExecutable, outpost, pathWithClis, scratchRepository } from "./support/installed.js";

// A newcomer's first hour with the installed bin, as the README tells it: `outpost demo` offline with no key,
// `outpost init` in their repository, `outpost run --help` naming where each default came from, and the demo
// again in a container. The test image stands in for the one `outpost image build` makes (no registry here).
const docker = await dockerGate({ images: [TEST_IMAGE] });
/** No key anywhere: the demo must not need one. */
function keyless(temp: string): Record<string, string> {
  const environment: Record<string, string> = { PATH: pathWithClis(), TMPDIR: temp };
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !/API_KEY|TOKEN/.test(name) && !(name in environment)) environment[name] = value;
  return environment;
}

describe("a user's first hour with the installed outpost", () => {
  it("outpost demo: a commit and a continuation offline, nothing left in the temp folder", async () => {
    const temp = mkdtempSync(join(tmpdir(), "outpost-consumer-demo-"));
    const run = await outpost(["demo"], { cwd: temp, env: keyless(temp) });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/commit on main: [0-9a-f]+ Add hello\.txt/);
    expect(run.stdout).toContain("history_has_turn1=true");
    expect(run.stdout).toContain("outpost demo --provider docker");
    expect(readdirSync(temp).filter((name) => name.startsWith("outpost-demo-"))).toEqual([]);
  }, 120_000);

  it("outpost init writes .outpost/ once, and outpost run --help names the config file as the source of its defaults", async () => {
    const repository = scratchRepository("outpost-consumer-init-");
    const first = await outpost(["init", "--agent", "claude", "--provider", "docker"], { cwd: repository });
    expect(first.status, first.stderr).toBe(0);
    for (const name of ["config.json", ".env.example", "Dockerfile", ".gitignore"])
      expect(existsSync(join(repository, ".outpost", name)), name).toBe(true);
    expect(readFileSync(join(repository, ".gitignore"), "utf8")).toContain(".outpost/.env");
    const again = await outpost(["init"], { cwd: repository });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/^wrote/m);
    const help = await outpost(["run", "--help"], { cwd: repository });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--provider\s+docker\s+from .*\.outpost\/config\.json/);
    const usage = await outpost(["run", "--no-such-flag", "brief"], { cwd: repository });
    expect(usage.status).toBe(2);
    expect(usage.stderr.trim().split("\n").length).toBeLessThanOrEqual(3);
  }, 60_000);

  (docker.unavailable ? it.skip : it)(
    `outpost demo --provider docker: both turns in a container, offline${docker.unavailable ? ` (unavailable: ${docker.unavailable.reason})` : ""}`,
    async () => {
      const temp = mkdtempSync(join(tmpdir(), "outpost-consumer-demo-"));
      const claude = claudeExecutable();
      const args = ["demo", "--agent", "claude", "--provider", "docker", "--image", TEST_IMAGE];
      args.push("--volume", `${dirname(dirname(claude))}:${dirname(dirname(claude))}:ro`, "--executable", claude);
      const run = await outpost(args, { cwd: temp, env: keyless(temp) });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain("running claude in a docker sandbox");
      expect(run.stdout).toContain("history_has_turn1=true");
      expect(readdirSync(temp).filter((name) => name.startsWith("outpost-demo-"))).toEqual([]);
    },
    300_000,
  );
});
