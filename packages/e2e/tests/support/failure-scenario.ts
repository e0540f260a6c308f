import { classifyFailure } from "@outpost/core";
import type { AgentAdapter, FailureClassification, SandboxProvider } from "@outpost/core";
import { startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentSandbox, type AgentSandbox } from "./agent-sandbox.js";
import { missingCli } from "./cli-bin.js";
import { requireOfflineWhenAsked } from "./offline-tripwire.js";
import { runAgentTurn } from "./run-agent-turn.js";

export interface FailureScenario {
  readonly name: string;
  readonly executable: string;
  /** The adapter under test with retries limited, pointed at the server. */
  agent(server: ModelServer): AgentAdapter;
  provider(): SandboxProvider;
  /** HTTP status the server answers every model call with → the classification the agent's rules must give. */
  readonly statuses: Readonly<Record<number, FailureClassification>>;
  readonly turnDeadlineMs?: number;
}

/**
 * Checks the agent's failure rules against the live output of its pinned CLI: the scripted server refuses every
 * model call with a status, and the CLI's own stdout + stderr must be classified as recorded.
 */
export function describeFailureScenario(scenario: FailureScenario): void {
  requireOfflineWhenAsked();
  const unavailable = missingCli(scenario.executable);
  describe(`${scenario.name} CLI failure classification`, () => {
    if (unavailable) {
      it.skip(`unavailable: ${unavailable}`, () => undefined);
      return;
    }
    let sandbox: AgentSandbox;
    beforeAll(async () => {
      sandbox = await agentSandbox(scenario.provider());
    });
    afterAll(async () => sandbox?.dispose());

    for (const [status, classification] of Object.entries(scenario.statuses)) {
      it(`classifies the CLI's output after HTTP ${status} as ${classification}`, async () => {
        const server = await startModelServer({ responder: () => ({ error: { status: Number(status) } }) });
        try {
          const agent = scenario.agent(server);
          const lease = await sandbox.lease(`refused-${status}`);
          // Error reports some CLIs drop in the temporary directory (gemini-client-error-*.json) stay in the lease home.
          const variables = { TMPDIR: lease.home };
          const run = await runAgentTurn(agent, lease, { prompt: "Say hello", deadlineMs: scenario.turnDeadlineMs ?? 60_000, variables });
          expect(run.result.status).not.toBe(0);
          expect(server.turns().length).toBeGreaterThan(0);
          const output = `${run.result.stdout}\n${run.result.stderr}`;
          expect(classifyFailure(agent.failureRules ?? [], output)?.classification).toBe(classification);
          const finished = run.of("finished").at(-1);
          if (finished) expect(finished.isError).toBe(true);
        } finally {
          await server.close();
        }
      });
    }
  });
}
