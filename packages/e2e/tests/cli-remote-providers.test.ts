import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaytonaDouble, type DaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { startVercelDouble, type VercelDouble } from "@outpost/cloud-doubles/vercel";
import { gitIn, scratchRepository } from "../src/index.js";
import { outpostArguments, scriptAgentModule } from "./support/cli-process.js";
import { daytonaEnvironment, onlyCloud, vercelEnvironment } from "./support/cloud-environment.js";

// `outpost run --provider vercel|daytona` as a user runs it: the CLI is a child process, its credentials come
// from the SDKs' usual variables, and the API it reaches is the offline double (Vercel: OUTPOST_VERCEL_API_URL,
// since the SDK has no variable for its origin; Daytona: DAYTONA_API_URL, the SDK's own).

let vercel: VercelDouble;
let daytona: DaytonaDouble;

beforeAll(async () => {
  [vercel, daytona] = await Promise.all([startVercelDouble(), startDaytonaDouble()]);
}, 60_000);

afterAll(async () => {
  await Promise.all([vercel?.close(), daytona?.close()]);
});

/** Runs `outpost <args>` without blocking this process (the doubles answer from it), with only `cloud` of the cloud variables. */
function outpost(args: readonly string[], cwd: string, cloud: Record<string, string>) {
  const child = spawn(process.execPath, outpostArguments(args), {
    cwd,
    env: onlyCloud(cloud),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

function lines(stdout: string): { type: string; [key: string]: unknown }[] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
}

describe("outpost run and doctor with the cloud providers, credentials from the environment", () => {
  for (const [provider, environment, created] of [
    [
      "vercel",
      () => vercelEnvironment(vercel),
      () => vercel.requests.filter((request) => /^POST \/v[23]\/sandboxes$/.test(request)).length,
    ],
    [
      "daytona",
      () => daytonaEnvironment(daytona),
      () => daytona.requests.filter((request) => /^POST \/api\/sandbox$/.test(request)).length,
    ],
  ] as const) {
    it(`--provider ${provider}: the script agent's commit comes back to the branch and the sandbox is gone afterwards`, async () => {
      const repository = scratchRepository();
      const { module } = scriptAgentModule({ FILE: `${provider}.txt` });
      const before = created();
      const result = await outpost(
        [
          "run",
          "--agent-module",
          module,
          "--agent",
          "script",
          "--provider",
          provider,
          "--branch",
          "integrate",
          "--json",
          `write ${provider}.txt`,
        ],
        repository,
        environment(),
      );
      expect(result.status, result.stderr + result.stdout).toBe(0);
      const last = lines(result.stdout).pop()!;
      expect(last).toMatchObject({ type: "result", completed: true, branch: "main" });
      expect(last.commits).toEqual([gitIn(repository, "rev-parse", "main")]);
      expect(gitIn(repository, "show", "--name-only", "--format=", "main")).toBe(`${provider}.txt`);
      expect(created()).toBe(before + 1);
      expect(provider === "vercel" ? vercel.sandboxes() : daytona.sandboxes()).toEqual([]);
    }, 180_000);
  }

  it("doctor reports each provider's credentials present or missing, and never prints them", async () => {
    const repository = scratchRepository();
    const present = await outpost(["doctor", "--json"], repository, { ...vercelEnvironment(vercel), ...daytonaEnvironment(daytona) });
    expect(present.status, present.stderr).toBe(0);
    const reports = lines(present.stdout).filter((line) => line.type === "provider");
    expect(reports.find((line) => line.provider === "vercel")).toMatchObject({ ok: true, detail: expect.stringMatching(/VERCEL_TOKEN/) });
    expect(reports.find((line) => line.provider === "daytona")).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/DAYTONA_API_KEY/),
    });
    for (const secret of [vercel.credentials.token, daytona.credentials.apiKey]) {
      expect(present.stdout + present.stderr).not.toContain(secret);
    }
    const missing = await outpost(["doctor"], repository, {});
    expect(missing.status, missing.stderr).toBe(0);
    expect(missing.stdout).toMatch(/^vercel\s+missing\s+no credentials: set VERCEL_TOKEN/m);
    expect(missing.stdout).toMatch(/^daytona\s+missing\s+no credentials: set DAYTONA_API_KEY/m);
  }, 120_000);
});
