import { codexAgent } from "@outpost/agent-codex";
import { copilotAgent } from "@outpost/agent-copilot";
import { opencodeAgent } from "@outpost/agent-opencode";
import { isOutpostError, type OutpostError, type SandboxProvider } from "@outpost/core";
import { dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { conversationResponder, startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchRepository } from "../../src/index.js";
import { missingCli, pathWithClis } from "../support/cli-bin.js";
import { matrixReleases } from "../support/cli-matrix.js";
import { requireOfflineWhenAsked } from "../support/offline-tripwire.js";

/** What the per-version feature tables change for a whole dispatch: refusals before allocation, warnings, error lines. */
requireOfflineWhenAsked();
const copilot = matrixReleases().find((release) => release.agent === "copilot");
const opencode = matrixReleases().find((release) => release.agent === "opencode");

function counting(provider: SandboxProvider): SandboxProvider & { acquired: () => number } {
  let count = 0;
  return { ...provider, acquire: (context) => ((count += 1), provider.acquire(context)), acquired: () => count };
}

describe("dispatch with CLI versions", () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer({
      responder: conversationResponder({ file: "hello.txt", content: "hi", turn1Marker: "MARKER_TURN1_DONE" }),
    });
  });
  afterAll(async () => server?.close());

  it("refuses a fork the CLI release cannot do with `configuration` naming the release that can, before any sandbox", async () => {
    const provider = counting(localProvider({ home: "private" }));
    const error = await dispatch({
      agent: codexAgent({ version: "0.147.0" }),
      brief: "x",
      repository: scratchRepository(),
      sandboxProvider: provider,
      continuation: { id: "01a23602-2a2f-75f3-9c72-23a3abd8668b", fork: true },
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect((error as OutpostError).message).toMatch(/codex 0\.147\.0 has no `exec fork`; fork needs codex 0\.148\.0 or newer/);
    expect(provider.acquired()).toBe(0);
  });

  it.skipIf(missingCli("codex") !== undefined)(
    "runs a release outside the tested range, with a warning (normal output) naming the range",
    async () => {
      const warnings: string[] = [];
      const result = await dispatch({
        // The pinned CLI, declared as a newer release than the matrix covers.
        agent: codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "outpost-test-key", model: "gpt-5.5", maxRetries: 0, version: "0.200.0" }),
        brief: "Create hello.txt containing hi",
        repository: scratchRepository(),
        until: [],
        sandboxProvider: localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
        warn: (message) => warnings.push(message),
      });
      expect(result.text).toContain("MARKER_TURN1_DONE");
      expect(warnings.filter((message) => message.includes("tested range"))).toEqual([
        expect.stringMatching(/codex 0\.200\.0 is outside the tested range 0\.147\.0–0\.171\.0/),
      ]);
    },
    180_000,
  );

  it.skipIf(copilot?.missing !== undefined)(
    "a CLI that stops on a flag shows its own error line, not only the tail of its output",
    async () => {
      // Copilot 1.0.92 declared as 1.0.102: the command carries --disable-client-telemetry, which it does not know.
      const error = await dispatch({
        agent: copilotAgent({
          endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" },
          model: "fake-model",
          executable: copilot!.executable,
          version: "1.0.102",
        }),
        brief: "Create hello.txt containing hi",
        repository: scratchRepository(),
        until: [],
        sandboxProvider: localProvider({ home: "private" }),
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isOutpostError(error, "process")).toBe(true);
      expect((error as OutpostError).message).toContain("error: unexpected argument '--disable-client-telemetry' found");
    },
    180_000,
  );

  it.skipIf(opencode?.missing !== undefined)(
    "a CLI that answers an unknown flag with its help text only is said to have refused an option",
    async () => {
      // opencode 1.17.0 declared as 1.17.18: `--auto` is unknown to it, and it prints nothing but its usage text.
      const error = await dispatch({
        agent: opencodeAgent({
          endpoint: { baseUrl: `${server.url}/v1`, apiKey: "fake-key" },
          model: "fake-model",
          executable: opencode!.executable,
          version: "1.17.18",
        }),
        brief: "Create hello.txt containing hi",
        repository: scratchRepository(),
        until: [],
        sandboxProvider: localProvider({ home: "private" }),
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isOutpostError(error, "process")).toBe(true);
      expect((error as OutpostError).message).toMatch(
        /printed only its usage text \(`opencode run \[message\.\.\]`\): it does not accept an option or argument it was given/,
      );
    },
    180_000,
  );
});
