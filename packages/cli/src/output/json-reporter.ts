import type { OutpostError } from "@outpost/core";
import type { AgentObservation, DispatchResult } from "@outpost/dispatch";
import type { Reporter } from "./reporter.js";

/** `--json`: one JSON object per line, each with a `type`. */
export function jsonReporter(stdout: NodeJS.WritableStream, redact: <T>(value: T) => T = (value) => value): Reporter {
  // Every line passes through the run's redaction (--redact and the credential variables) before it is printed.
  const line = (value: Record<string, unknown>): void => {
    stdout.write(`${JSON.stringify(redact(value))}\n`);
  };
  return {
    start: (info) => line({ type: "start", ...info, timestamp: new Date().toISOString() }),
    event: (observation: AgentObservation) =>
      line({ type: "event", pass: observation.pass, timestamp: observation.timestamp, event: observation.event }),
    warn: (message) => line({ type: "warning", message }),
    diagnostic: (message) => line({ type: "diagnostic", message }),
    result: (result: DispatchResult) =>
      line({
        type: "result",
        dispatchId: result.dispatchId,
        completed: result.completed,
        text: result.text,
        commits: result.commits,
        branch: result.branch ?? null,
        workBranch: result.workBranch ?? null,
        directory: result.directory,
        workspaceKept: result.workspaceKept,
        conversationId: result.conversationId ?? null,
        conversation: result.conversation ?? null,
        // Why nothing can be continued: the conversation could not be captured.
        conversationError: result.conversationError ?? null,
        journal: result.journal?.key ?? null,
        usage: result.usage,
        turns: result.turns.length,
        // With --pricing: the run's cost and each turn's, in US dollars (null where unknown).
        ...(result.turns.some((turn) => turn.costUsd !== undefined)
          ? { costUsd: result.costUsd ?? null, turnCostsUsd: result.turns.map((turn) => turn.costUsd ?? null) }
          : {}),
        ...("value" in result ? { value: result.value ?? null } : {}),
        // What the watchdog found and let go on (warned or steered).
        ...(result.watchdog ? { watchdog: result.watchdog } : {}),
        durationMs: result.durationMs,
        observerErrors: result.observerErrors.map((entry) => entry.message),
      }),
    error: (error: OutpostError) => line({ type: "error", code: error.code, message: error.message, details: error.details }),
    close: () => undefined,
  };
}
