import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_IMAGE, describeGated, dockerGate } from "@outpost/testkit/gates";
import { SCRIPT_RESULT_MARKER } from "../src/sandbox/script-outcome.js";

// What users install: the package as built (dist/), imported by plain `node` without the outpost-source
// condition. The sandbox programs run from dist/sandbox-programs.cjs, the file the package ships.
const packageRoot = fileURLToPath(new URL("..", import.meta.url));
const programsFile = join(packageRoot, "dist", "sandbox-programs.cjs");
const roundTrip = fileURLToPath(new URL("./built/round-trip.mjs", import.meta.url));
const run = promisify(execFile);

let programsSource: string;
let programNames: string[];
beforeAll(async () => {
  programsSource = await readFile(programsFile, "utf8").catch(() => {
    throw new Error(`${programsFile} is missing: run npm run build first (npm test does).`);
  });
  const evaluate = new Function("require", `${programsSource}\nreturn outpostSandbox.programNames;`) as (
    require: NodeJS.Require,
  ) => string[];
  programNames = evaluate(createRequire(import.meta.url));
});

/** Runs the round trip in a fresh node process, outside vitest's resolution, with no NODE_PATH. */
async function builtRoundTrip(kind: "local" | "docker") {
  const base = await mkdtemp(join(tmpdir(), "outpost-built-"));
  try {
    const { NODE_PATH: _, NODE_OPTIONS: __, ...environment } = process.env;
    const { stdout } = await run(process.execPath, [roundTrip, kind, base, TEST_IMAGE], { env: environment, timeout: 120_000 });
    return JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, unknown> & { ran: string[]; targetRoot: string };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

function expectRestored(result: Awaited<ReturnType<typeof builtRoundTrip>>) {
  expect(result.captured).toBe(true);
  expect(result.restoredTranscript).toBe(`{"cwd":"${result.targetRoot}"}\n`);
  expect(result.restoredSidecar).toBe("kept");
  expect(result.secretLeft).toBe(false);
  expect(result.buckets).toMatch(/^wd_[0-9a-f]{8}$/);
  expect(result.restoredState).toEqual({
    id: "0e6c2a84-5f0b-4d8e-9b6a-1f2e3d4c5b6a",
    cwd: result.targetRoot,
    note: `made in ${result.targetRoot}`,
  });
  expect(result.leftoverGone).toBe(true);
  // Every program the sandbox file holds ran from it.
  expect(result.ran).toEqual([...programNames].sort());
}

describe("the built @outpost/conversations", () => {
  it("holds the sandbox programs in one file that imports only Node built-ins", () => {
    expect(programNames.length).toBeGreaterThanOrEqual(9);
    const required = [...programsSource.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]!);
    expect(required.every((name) => name.startsWith("node:"))).toBe(true);
    expect(programsSource).not.toMatch(/\bimport\s*\(|\bimport\.meta\b/);
  });

  it("runs a program with plain node in an empty folder, with no module resolution of the project", async () => {
    const empty = await mkdtemp(join(tmpdir(), "outpost-bare-"));
    try {
      const file = join(empty, "doomed");
      await import("node:fs/promises").then((fs) => fs.writeFile(file, "x"));
      const source = `"use strict";\n${programsSource}\noutpostSandbox.start("remove", undefined);\n`;
      const result = spawnSync(process.execPath, ["-e", source], {
        cwd: empty,
        env: { PATH: "/usr/bin:/bin" },
        input: `${JSON.stringify({ path: file })}\n`,
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(result.stderr).toBe("");
      expect(result.stdout).toContain(`${SCRIPT_RESULT_MARKER}{"ok":true,"value":true}`);
      await expect(import("node:fs/promises").then((fs) => fs.lstat(file))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("captures and restores a transcript and a session bundle on a local lease, and in-process", async () => {
    const result = await builtRoundTrip("local");
    expectRestored(result);
    expect(result.inProcess).toMatch(/^\{"cwd":"\/.*\/third"\}\n$/);
    expect(result.hostFiles).toEqual(["built-bundle", "built-transcript"]);
  });
});

const docker = await dockerGate({ images: [TEST_IMAGE] });
describeGated("the built @outpost/conversations in a Docker sandbox", docker, () => {
  it("captures and restores through every sandbox program in the container", async () => {
    expectRestored(await builtRoundTrip("docker"));
  });
});
