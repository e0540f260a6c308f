import type { OutpostError } from "@outpost/core";
import type { AgentObservation, DispatchResult } from "@outpost/dispatch";
import type { Reporter } from "./reporter.js";
import { conversationLine } from "./conversation-line.js";
import { colorEnabled } from "./color-enabled.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * Human output. On a terminal (`live`) a status line shows the agent, pass, elapsed time and tool calls,
 * redrawn in place; events and warnings scroll above it. Elsewhere the same lines are printed plainly.
 */
export function progressReporter(
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
  live: boolean,
  colored = colorEnabled(live),
): Reporter {
  const started = Date.now();
  let agent = "agent";
  let pass = 1;
  let toolCalls = 0;
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  const color = (code: number, text: string): string => (colored ? `\u001b[${code}m${text}\u001b[0m` : text);
  const clearStatus = (): void => {
    if (live) stdout.write("\r\u001b[2K");
  };
  const drawStatus = (): void => {
    if (!live) return;
    const elapsed = ((Date.now() - started) / 1000).toFixed(1);
    stdout.write(
      `\r\u001b[2K${color(36, FRAMES[frame++ % FRAMES.length]!)} ${agent} · pass ${pass} · ${elapsed}s · ${toolCalls} tool call${toolCalls === 1 ? "" : "s"}`,
    );
  };
  const print = (text: string, stream: NodeJS.WritableStream = stdout): void => {
    clearStatus();
    stream.write(`${text}\n`);
    drawStatus();
  };
  return {
    start(info) {
      agent = info.label ? `${info.label} (${info.agent})` : info.agent;
      print(color(1, `outpost: running ${info.agent} in a ${info.provider} sandbox`));
      if (live) timer = setInterval(drawStatus, 100);
    },
    event(observation: AgentObservation) {
      pass = observation.pass;
      const text = describeEvent(observation.event);
      if (observation.event.type === "tool-call") toolCalls += 1;
      if (text) print(`  ${text}`);
    },
    warn: (message) => print(color(33, `  ! ${message}`), stderr),
    diagnostic: (message) => print(color(2, `  · ${message}`)),
    result(result: DispatchResult, agentOption: string | undefined) {
      clearStatus();
      const conversation = conversationLine(result, agentOption);
      const lines = [
        color(
          result.completed ? 32 : 33,
          result.completed
            ? `✓ done in ${(result.durationMs / 1000).toFixed(1)}s`
            : `✗ no end marker after ${result.turns.length} pass(es)`,
        ),
        result.text ? `\n${result.text}\n` : "",
        // With --response: the validated value, as JSON.
        "value" in result ? `value: ${JSON.stringify(result.value, null, 2)}` : "",
        result.commits.length > 0
          ? `commits: ${result.commits.map((commit) => commit.slice(0, 12)).join(", ")} on ${result.branch ?? "a detached HEAD"}`
          : "commits: none",
        result.workspaceKept && result.directory ? `worktree: ${result.directory}` : "",
        conversation ? (conversation.failed ? color(33, conversation.text) : conversation.text) : "",
        ...result.observerErrors.map((entry) => color(33, `observer error: ${entry.message}`)),
      ];
      stdout.write(`${lines.filter(Boolean).join("\n")}\n`);
    },
    error(error: OutpostError) {
      clearStatus();
      stderr.write(`${color(31, `outpost: ${error.code}:`)} ${error.message}\n`);
    },
    close() {
      if (timer) clearInterval(timer);
      clearStatus();
    },
  };
}

function describeEvent(event: AgentObservation["event"]): string | undefined {
  switch (event.type) {
    case "tool-call":
      return `→ ${event.name} ${truncate(JSON.stringify(event.input ?? {}), 100)}`;
    case "tool-result":
      return event.isError ? `← error: ${truncate(event.output, 100)}` : undefined;
    case "text":
      return event.delta ? undefined : `» ${truncate(event.text.split("\n")[0] ?? "", 120)}`;
    case "conversation":
      return `conversation ${event.id}`;
    case "failure":
      return `✗ ${event.message}`;
    case "fallback":
      return `↪ ${event.from} failed (${event.classification}); ${event.to} runs the brief instead`;
    case "steer":
      return `✎ steering ${event.delivery}: ${truncate(event.text, 100)}`;
    default:
      return undefined;
  }
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
