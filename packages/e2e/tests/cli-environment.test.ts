import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { scratchRepository } from "../src/index.js";

// The CLI runs from its TypeScript sources in a child process whose environment holds a marker secret,
// as a developer's shell holds cloud keys and tokens.
const packages = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = join(packages, "cli/src/bin.ts");
const tsxLoader = pathToFileURL(join(packages, "../node_modules/tsx/dist/loader.mjs")).href;
const SECRET = "outpost-marker-secret-5c81e2";

/** A script agent that prints every variable it sees, in its answer and its transcript. */
function environmentPrintingAgent(): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-cli-env-agent-"));
  const module = join(directory, "agent.mjs");
  writeFileSync(
    module,
    [
      `import { scriptAgent } from ${JSON.stringify(join(packages, "e2e/src/index.ts"))};`,
      `export function createAgent() { return scriptAgent({ directory: ${JSON.stringify(directory)}, behaviour: { PRINT_ENVIRONMENT: "1" } }); }`,
    ].join("\n"),
  );
  return module;
}

function runWithSecret(extraFlags: readonly string[]): { stdout: string; transcript: string } {
  const repository = scratchRepository();
  const conversations = mkdtempSync(join(tmpdir(), "outpost-cli-env-home-"));
  const args = [
    "run",
    "--agent-module",
    environmentPrintingAgent(),
    "--agent",
    "script",
    "--provider",
    "local",
    "--json",
    "--conversation-home",
    conversations,
    ...extraFlags,
    "print your environment",
  ];
  const result = spawnSync(process.execPath, ["--conditions=outpost-source", "--import", tsxLoader, bin, ...args], {
    cwd: repository,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, OUTPOST_TEST_SECRET: SECRET, AWS_SECRET_ACCESS_KEY: `aws-${SECRET}`, GITHUB_TOKEN: `ghp-${SECRET}` },
  });
  expect(result.status, result.stderr).toBe(0);
  const stored = join(conversations, ".outpost", "conversations", "script-agent");
  const transcript = readdirSync(stored)
    .map((name) => readFileSync(join(stored, name), "utf8"))
    .join("\n");
  return { stdout: result.stdout, transcript };
}

describe("outpost run --provider local: the invoking environment", () => {
  it("keeps a secret of the invoking shell out of the agent, its transcript and the --json output", () => {
    const { stdout, transcript } = runWithSecret([]);
    // The agent did print what it saw: its own declared variable and the allow-listed PATH.
    expect(stdout).toContain("SCRIPT_AGENT_PRINT_ENVIRONMENT=1");
    expect(stdout).toContain("PATH=");
    expect(transcript).toContain("SCRIPT_AGENT_PRINT_ENVIRONMENT=1");
    expect(stdout).not.toContain(SECRET);
    expect(transcript).not.toContain(SECRET);
  }, 150_000);

  it("refuses --inherit-environment with the Docker provider, which never passes the environment", () => {
    const result = spawnSync(
      process.execPath,
      [
        "--conditions=outpost-source",
        "--import",
        tsxLoader,
        bin,
        "run",
        "--agent",
        "claude",
        "--provider",
        "docker",
        "--inherit-environment",
        "brief",
      ],
      {
        cwd: scratchRepository(),
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr + result.stdout).toMatch(/--inherit-environment does not apply to --provider docker \(it reads: [^)]*--image/);
  });

  it("hands the whole environment over only with --inherit-environment", () => {
    const { stdout, transcript } = runWithSecret(["--inherit-environment"]);
    // The agent saw the value (its byte-exact transcript holds it); --json names the variable but prints a
    // credential's value redacted, as everything Outpost emits (issue 44's redaction by default).
    expect(transcript).toContain(`OUTPOST_TEST_SECRET=${SECRET}`);
    expect(stdout).toContain("OUTPOST_TEST_SECRET=[redacted]");
    expect(stdout).not.toContain(SECRET);
  }, 150_000);
});
