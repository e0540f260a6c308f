import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { codexAgent } from "@outpost/agent-codex";
import { opencodeAgent } from "@outpost/agent-opencode";
import { isOutpostError, type OutpostError, type SandboxProvider } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { localProvider } from "@outpost/provider-local";
import { conversationResponder, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DOCKER_TEST_IMAGE, dockerGate, scratchRepository } from "../../src/index.js";
import { CLI_BIN, missingCli, pathWithClis } from "../support/cli-bin.js";
import { matrixCache, matrixReleases } from "../support/cli-matrix.js";
import { insideOfflineNamespace } from "../support/offline-tripwire.js";

/**
 * The CLI release is learned where the agent runs, not on the host: a container whose CLI differs from the
 * host's (older and newer), and a `--version` slowed past the budget, which makes the version unknown.
 */
const opencodeOld = matrixReleases().find((release) => release.agent === "opencode");
const codexOld = matrixReleases().find((release) => release.agent === "codex");
const NODE_MODULES = dirname(CLI_BIN);
const binOf = (release: { executable: string }) => dirname(release.executable);

/** A container that sees the host's CLIs, with `bin` first on its PATH (the release that runs there). */
function container(bin: string): SandboxProvider {
  return dockerProvider({
    image: DOCKER_TEST_IMAGE,
    network: "host",
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    volumes: [
      { source: NODE_MODULES, target: NODE_MODULES, readOnly: true },
      { source: matrixCache(), target: matrixCache(), readOnly: true },
    ],
    variables: { PATH: `${bin}:${CLI_BIN}:/usr/local/bin:/usr/bin:/bin` },
  });
}

/** `<name>` that answers everything as the real CLI does, but takes 30 s to print its version. */
function slowVersionWrapper(name: string): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-slow-version-"));
  const wrapper = join(directory, name);
  writeFileSync(wrapper, `#!/bin/sh\nif [ "$1" = "--version" ]; then sleep 30; fi\nexec ${JSON.stringify(join(CLI_BIN, name))} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return directory;
}

describe("the CLI version where the agent runs", () => {
  let server: ModelServer;
  const path = process.env["PATH"];
  beforeAll(async () => {
    server = await startModelServer({ responder: conversationResponder() });
  });
  afterAll(async () => server?.close());
  afterEach(() => {
    process.env["PATH"] = path;
    delete process.env["OUTPOST_CLI_PROBE_MS"];
  });
  const opencode = (variables: Record<string, string> = {}) =>
    opencodeAgent({ endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" }, model: "fake-model", variables });
  const userAgent = () => server.requests.filter((request) => request.kind === "turn").at(-1)?.headers["user-agent"] ?? "";

  // Its containers use the host network to reach the model server, which the offline namespace cannot give them:
  // this file's container cases run in npm test, outside offline.sh.
  const docker = insideOfflineNamespace()
    ? "host-network containers cannot join the offline namespace (they run in npm test)"
    : dockerGate().unavailable?.reason;
  const containers = missingCli("opencode") ?? opencodeOld?.missing ?? docker;
  it.skipIf(containers !== undefined)(
    `opencode older in the container (${opencodeOld?.version}) than on the host: its own flag, no warning${containers ? ` (unavailable: ${containers})` : ""}`,
    async () => {
      process.env["PATH"] = pathWithClis(); // the host has the pinned release first
      const warnings: string[] = [];
      const result = await dispatch({
        agent: opencode(),
        brief: "Create hello.txt containing hi",
        repository: scratchRepository(),
        until: [],
        sandboxProvider: container(binOf(opencodeOld!)),
        warn: (message) => warnings.push(message),
      });
      expect(result.text).toContain("MARKER_TURN1_DONE");
      expect(userAgent()).toContain(`opencode/${opencodeOld!.version}`);
      expect(warnings.filter((message) => message.includes("opencode"))).toEqual([]);
    },
    300_000,
  );

  it.skipIf(containers !== undefined)(
    `opencode newer in the container (pinned) than on the host (${opencodeOld?.version})${containers ? ` (unavailable: ${containers})` : ""}`,
    async () => {
      process.env["PATH"] = `${binOf(opencodeOld!)}:${path ?? "/usr/bin:/bin"}`;
      const result = await dispatch({
        agent: opencode(),
        brief: "Create hello.txt containing hi",
        repository: scratchRepository(),
        until: [],
        sandboxProvider: container(CLI_BIN),
      });
      expect(result.text).toContain("MARKER_TURN1_DONE");
      expect(userAgent()).toMatch(/opencode\/1\.18\./);
    },
    300_000,
  );

  const codexContainers = missingCli("codex") ?? codexOld?.missing ?? docker;
  it.skipIf(codexContainers !== undefined)(
    `codex ${codexOld?.version} in the container, newer on the host: fork is refused before the turn${codexContainers ? ` (unavailable: ${codexContainers})` : ""}`,
    async () => {
      process.env["PATH"] = pathWithClis();
      const agent = codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "test-key", model: "gpt-5.5", maxRetries: 0 });
      const repository = scratchRepository();
      const conversationHome = mkdtempSync(join(tmpdir(), "outpost-conversations-"));
      const common = { agent, repository, conversationHome, until: [], sandboxProvider: container(binOf(codexOld!)) };
      const first = await dispatch({ ...common, brief: "Create hello.txt containing hi" });
      const turns = server.requests.length;
      const error = (await dispatch({ ...common, brief: "TURN2", continuation: { id: first.conversationId!, fork: true } }).then(
        () => undefined,
        (caught: unknown) => caught,
      )) as OutpostError;
      expect(isOutpostError(error, "configuration")).toBe(true);
      expect(error.message).toMatch(new RegExp(`codex ${codexOld!.version.replace(/\./g, "\\.")} has no \`exec fork\``));
      expect(server.requests.length).toBe(turns); // the CLI never ran
    },
    300_000,
  );

  it.skipIf(missingCli("opencode") !== undefined)(
    "a --version slower than the budget: the version is unknown, said as a warning, and the turn runs with the safe choice",
    async () => {
      process.env["OUTPOST_CLI_PROBE_MS"] = "1500";
      const warnings: string[] = [];
      const result = await dispatch({
        agent: opencode({ PATH: `${slowVersionWrapper("opencode")}:${pathWithClis()}` }),
        brief: "Create hello.txt containing hi",
        repository: scratchRepository(),
        until: [],
        sandboxProvider: localProvider({ home: "private" }),
        warn: (message) => warnings.push(message),
      });
      expect(result.text).toContain("MARKER_TURN1_DONE");
      expect(warnings).toContainEqual(
        expect.stringMatching(
          /^opencode: the CLI version is unknown \(`opencode --version` did not answer within 2 s\); no permission flag/,
        ),
      );
    },
    300_000,
  );

  it.skipIf(missingCli("codex") !== undefined)(
    "a --version slower than the budget: a fork that depends on the release is refused before the turn",
    async () => {
      const repository = scratchRepository();
      const conversationHome = mkdtempSync(join(tmpdir(), "outpost-conversations-"));
      const codex = (variables: Record<string, string>) =>
        codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "test-key", model: "gpt-5.5", maxRetries: 0, variables });
      const common = { repository, conversationHome, until: [], sandboxProvider: localProvider({ home: "private" }) };
      const first = await dispatch({ ...common, agent: codex({ PATH: pathWithClis() }), brief: "Create hello.txt containing hi" });
      process.env["OUTPOST_CLI_PROBE_MS"] = "1500";
      const turns = server.requests.length;
      const error = (await dispatch({
        ...common,
        agent: codex({ PATH: `${slowVersionWrapper("codex")}:${pathWithClis()}` }),
        brief: "TURN2",
        continuation: { id: first.conversationId!, fork: true },
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      )) as OutpostError;
      expect(isOutpostError(error, "configuration")).toBe(true);
      expect(error.message).toMatch(
        /codex version is unknown, and fork needs codex 0\.148\.0 or newer\. Name the release with --agent-version/,
      );
      expect(server.requests.length).toBe(turns);
    },
    300_000,
  );
});
