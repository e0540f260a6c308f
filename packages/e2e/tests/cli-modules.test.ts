import { describe, expect, it } from "vitest";
import { runLocalWithProbe } from "./support/cli-process.js";

// A fresh `outpost run` pays for every module it loads (issue 19): a local run must not load what only other
// plugins or options need. A probe preloaded into the CLI names each npm package a module came from.

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

describe("a local CLI run loads only what it uses", () => {
  it("`outpost run` on the local provider loads no SDK of another plugin, no OpenTelemetry and no tar", () => {
    const { status, stderr } = runLocalWithProbe("module-probe.mjs", "modules.txt");
    expect(status, stderr).toBe(0);
    const lines = stderr.split("\n").filter((line) => line.startsWith("module-probe "));
    const packages = [...new Set(lines.map((line) => line.slice("module-probe ".length)))];
    // The probe sees what it should: the CLI's own argument parser is an npm package too.
    expect(packages).toContain("commander");
    expect(packages.filter((name) => NOT_FOR_A_LOCAL_RUN.includes(name))).toEqual([]);
  });
});
