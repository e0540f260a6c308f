import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { scratchRepository } from "../src/index.js";
import { outpostArguments, scriptAgentModule } from "./support/cli-process.js";

// A fresh `outpost run` pays for every module it loads (issue 19): a local run must not load what only other
// plugins or options need. A probe preloaded into the CLI names each npm package a module came from.
const here = dirname(fileURLToPath(import.meta.url));
const probe = pathToFileURL(join(here, "fixtures/module-probe.mjs")).href;

/** Packages only a Docker, cloud, S3 or queue run, a telemetry option or a tar transfer needs. */
const NOT_FOR_A_LOCAL_RUN = [
  "@opentelemetry/api",
  "tar-stream",
  "dockerode",
  "@vercel/sandbox",
  "@daytonaio/sdk",
  "@aws-sdk/client-s3",
  "bullmq",
  "ioredis",
];

function loadedPackages(args: readonly string[], cwd: string): { status: number | null; packages: string[]; stderr: string } {
  const result = spawnSync(process.execPath, outpostArguments(args, [probe]), { cwd, encoding: "utf8", timeout: 60_000 });
  const lines = result.stderr.split("\n").filter((line) => line.startsWith("module-probe "));
  const packages = [...new Set(lines.map((line) => line.slice("module-probe ".length)))];
  return { status: result.status, packages, stderr: result.stderr };
}

describe("a local CLI run loads only what it uses", () => {
  it("`outpost run` on the local provider loads no SDK of another plugin, no OpenTelemetry and no tar", () => {
    const repository = scratchRepository();
    const { module } = scriptAgentModule({ FILE: "modules.txt" });
    const { status, packages, stderr } = loadedPackages(
      ["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--branch", "integrate", "--json", "write modules.txt"],
      repository,
    );
    expect(status, stderr).toBe(0);
    // The probe sees what it should: the CLI's own argument parser is an npm package too.
    expect(packages).toContain("commander");
    expect(packages.filter((name) => NOT_FOR_A_LOCAL_RUN.includes(name))).toEqual([]);
  });
});
