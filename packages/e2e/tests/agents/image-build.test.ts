import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { codexAgent } from "@outpost/agent-codex";
import { DEFAULT_DOCKER_IMAGE, dockerProvider, PUBLIC_BASE_IMAGE } from "@outpost/provider-docker";
import { conversationResponder, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCKER_TEST_IMAGE } from "../../src/docker-gate.js";
import { agentSandbox, type AgentSandbox } from "../support/agent-sandbox.js";
import { dockerAgentsUnavailable } from "../support/docker-agent-provider.js";
import { readLeaseFile } from "../support/read-lease-file.js";
import { runAgentTurn } from "../support/run-agent-turn.js";

/**
 * `outpost image build` for real: the pinned codex CLI installed on the host (in the CLI cache, the matrix's
 * by default here) and copied onto the local test image; then a real turn runs in a container of the result,
 * with nothing mounted from the host, against the scripted model server.
 */
const OUTPOST = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "cli", "bin", "outpost.cjs");
const TAG = "outpost-e2e-agents:codex";
const unavailable = dockerAgentsUnavailable();

function outpost(...args: string[]): { status: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, [OUTPOST, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        OUTPOST_CLI_CACHE: process.env["OUTPOST_CLI_CACHE"] ?? process.env["OUTPOST_CLI_MATRIX"] ?? "/var/cache/outpost/cli-matrix",
      },
      timeout: 600_000,
    });
    return { status: 0, stdout, stderr: "" };
  } catch (error) {
    const failed = error as { status?: number; stdout?: string; stderr?: string };
    return { status: failed.status ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

function imageExists(name: string): boolean {
  try {
    execFileSync("docker", ["image", "inspect", name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(unavailable !== undefined)(`outpost image build${unavailable ? ` (unavailable: ${unavailable})` : ""}`, () => {
  let server: ModelServer;
  let sandbox: AgentSandbox;
  /** True when this test tagged the stand-in for the public base (and so removes that tag). */
  let standIn = false;
  const built: string[] = [];

  beforeAll(async () => {
    server = await startModelServer({
      responder: conversationResponder({ file: "hello.txt", content: "hi", turn1Marker: "MARKER_TURN1_DONE" }),
    });
  });
  afterAll(async () => {
    await sandbox?.dispose();
    await server?.close();
    for (const image of [TAG, ...built, ...(standIn ? [PUBLIC_BASE_IMAGE] : [])]) {
      try {
        execFileSync("docker", ["rmi", image], { stdio: "ignore" });
      } catch {
        // Already gone.
      }
    }
  });

  it("prints the recipe with --dockerfile: the chosen release on the named base", () => {
    const run = outpost("image", "build", "--agent", "codex@0.147.0", "--agent", "gemini", "--base", "example/base:1", "--dockerfile");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("FROM example/base:1\n");
    expect(run.stdout).toContain("npm install --prefix agents/codex @openai/codex@0.147.0");
    expect(run.stdout).toMatch(/npm install --prefix agents\/gemini @google\/gemini-cli@\d+\.\d+\.\d+/);
    expect(run.stdout).toContain('LABEL io.outpost.agents="codex=0.147.0 gemini=');
  });

  it("by default writes the recipe for the official Node image: git installed when missing, trusted worktrees", () => {
    const run = outpost("image", "build", "--agent", "codex", "--dockerfile");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`FROM ${PUBLIC_BASE_IMAGE}\n`);
    expect(run.stdout).toMatch(/apt-get install -y --no-install-recommends git ca-certificates procps/);
    expect(run.stdout).toContain("safe.directory '*'");
  });

  it("a base image that is neither on the engine nor pullable is refused with what to pull or pass", () => {
    const run = outpost("image", "build", "--agent", "codex", "--base", "outpost-e2e-no-such-base:1");
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("docker pull outpost-e2e-no-such-base:1");
    expect(run.stderr).toContain("--base <image>");
  });

  it("refuses an agent without an npm package, and a malformed version, with a configuration exit", () => {
    expect(outpost("image", "build", "--agent", "kimi", "--dockerfile")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("configuration"),
    });
    expect(outpost("image", "build", "--agent", "codex@latest", "--dockerfile")).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("not a version"),
    });
  });

  it("builds on the public base (a local stand-in tagged like it) and tags the Docker provider's default image", () => {
    // No registry here: the test image, which provides Node 20 and git, stands in for the official Node image.
    standIn = !imageExists(PUBLIC_BASE_IMAGE);
    if (standIn) execFileSync("docker", ["tag", DOCKER_TEST_IMAGE, PUBLIC_BASE_IMAGE]);
    const run = outpost("image", "build", "--agent", "codex", "--dockerfile");
    const build = outpost("image", "build", "--agent", "codex");
    expect(build.status, build.stderr).toBe(0);
    expect(build.stdout).toBe(`--image ${DEFAULT_DOCKER_IMAGE}\n`);
    // Both tags of the build (the default name and the recipe's hash) go in afterAll.
    built.push(
      ...execFileSync("docker", ["image", "inspect", "--format", '{{join .RepoTags " "}}', DEFAULT_DOCKER_IMAGE], { encoding: "utf8" })
        .trim()
        .split(" "),
    );
    const label = execFileSync(
      "docker",
      ["image", "inspect", "--format", '{{ index .Config.Labels "io.outpost.agents" }}', DEFAULT_DOCKER_IMAGE],
      {
        encoding: "utf8",
      },
    ).trim();
    expect(label).toMatch(/^codex=\d+\.\d+\.\d+$/);
    // The image built is the public base's recipe: the same FROM line and steps as --dockerfile prints.
    const history = execFileSync("docker", ["history", "--no-trunc", "--format", "{{.CreatedBy}}", DEFAULT_DOCKER_IMAGE], {
      encoding: "utf8",
    });
    expect(history).toContain("safe.directory");
    expect(run.stdout).toContain(`FROM ${PUBLIC_BASE_IMAGE}\n`);
    expect(
      execFileSync("docker", ["run", "--rm", "--network", "none", DEFAULT_DOCKER_IMAGE, "codex", "--version"], { encoding: "utf8" }),
    ).toContain(label.slice("codex=".length));
  }, 600_000);

  it("builds the pinned codex onto the test image, and a real turn runs in it with nothing mounted", async () => {
    const run = outpost("image", "build", "--agent", "codex", "--base", DOCKER_TEST_IMAGE, "--tag", TAG);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe(`--image ${TAG}\n`);
    const label = execFileSync("docker", ["image", "inspect", "--format", '{{ index .Config.Labels "io.outpost.agents" }}', TAG], {
      encoding: "utf8",
    }).trim();
    const version = /^codex=(\S+)$/.exec(label)?.[1];
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);

    sandbox = await agentSandbox(
      dockerProvider({ image: TAG, network: "host", user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 } }),
    );
    const lease = await sandbox.lease("image-workspace");
    // The host need not have codex: the image's label says which release runs.
    const agent = codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "outpost-test-key", model: "gpt-5.5", maxRetries: 0, version });
    const turn = await runAgentTurn(agent, lease, { prompt: "Create hello.txt containing hi", deadlineMs: 120_000 });
    expect(turn.result.status, turn.result.stderr.slice(-2000)).toBe(0);
    expect(await readLeaseFile(lease, "hello.txt")).toBe("hi");
    expect(
      turn
        .of("text")
        .map((event) => event.text)
        .join(""),
    ).toContain("MARKER_TURN1_DONE");
    expect(turn.diagnostics).toEqual([]);
    expect(server.problems).toEqual([]);
  }, 600_000);
});
