import { classifyFailure } from "@outpost/core";
import type { AgentEvent, AgentLineDecoder, FailureRule, Usage } from "@outpost/core";
import { COPILOT_FAILURE_RULES } from "./copilot-failure-rules.js";
import { lazyRaw, leadingType, numberField, objectField, parseJsonLine, stringField } from "./parse-json-line.js";

/** Event types that map to normalized events; every other line is kept as `raw` without being parsed. */
const MAPPED_TYPES: ReadonlySet<string> = new Set([
  "user.message", "assistant.message_delta", "assistant.message", "tool.execution_start", "tool.execution_complete",
  "session.usage_record", "assistant.usage", "session.start", "session.resume", "session.error", "result",
]);

/**
 * Decodes `copilot --output-format json` (JSONL, one `{type, data, id, timestamp}` per line).
 * Tool calls are taken from `tool.execution_start` (what actually ran), not from the model's
 * `toolRequests`, so a call is reported once. Lines that map to nothing are kept as `raw`.
 */
export class CopilotDecoder implements AgentLineDecoder {
  private conversationId: string | undefined;
  private lastText: string | undefined;

  constructor(private readonly failureRules: readonly FailureRule[] = COPILOT_FAILURE_RULES) {}

  decode(line: string): AgentEvent[] {
    const type = leadingType(line);
    if (type !== undefined && !MAPPED_TYPES.has(type)) return [lazyRaw(line)];
    const value = parseJsonLine(line);
    if (value === undefined) return line.trim().length === 0 ? [] : [{ type: "raw", line }];
    const events = this.map(value, line);
    return events.length > 0 ? events : [{ type: "raw", line, value }];
  }

  private map(value: Record<string, unknown>, line: string): AgentEvent[] {
    const data = objectField(value, "data");
    switch (value["type"]) {
      case "user.message": {
        const text = stringField(data, "content");
        return text === undefined ? [] : [{ type: "prompt", text }];
      }
      case "assistant.message_delta": {
        const text = stringField(data, "deltaContent");
        return text ? [{ type: "text", text, delta: true }] : [];
      }
      case "assistant.message": {
        const text = stringField(data, "content");
        if (!text) return [];
        this.lastText = text;
        return [{ type: "text", text }];
      }
      case "tool.execution_start": {
        const name = stringField(data, "toolName");
        if (name === undefined) return [];
        return [{ type: "tool-call", ...optionalId(stringField(data, "toolCallId")), name, input: data?.["arguments"] ?? {} }];
      }
      case "tool.execution_complete":
        return data === undefined ? [] : [toolResult(data)];
      case "session.usage_record": {
        const usage = usageOf(objectField(data ?? {}, "usage"));
        return usage === undefined ? [] : [{ type: "usage", usage }];
      }
      case "assistant.usage": {
        // Ephemeral per-call usage; 1.0.102 did not print it in BYOK runs, but its shape is known from the CLI.
        const usage = usageOf(data);
        return usage === undefined ? [] : [{ type: "usage", usage }];
      }
      case "session.start":
      case "session.resume":
        return this.conversation(stringField(data, "sessionId"));
      case "session.error": {
        const message = stringField(data, "message") ?? "Copilot CLI reported an error";
        const match = classifyFailure(this.failureRules, line);
        return [{ type: "failure", message, ...(match ? { classification: match.classification } : {}) }];
      }
      case "result": {
        const exitCode = numberField(value, "exitCode");
        return [
          ...this.conversation(stringField(value, "sessionId")),
          { type: "finished", ...(this.lastText === undefined ? {} : { text: this.lastText }), isError: exitCode !== 0 },
        ];
      }
      default:
        return [];
    }
  }

  private conversation(id: string | undefined): AgentEvent[] {
    if (id === undefined || id === this.conversationId) return [];
    this.conversationId = id;
    return [{ type: "conversation", id }];
  }
}

function toolResult(data: Record<string, unknown>): AgentEvent {
  const id = stringField(data, "toolCallId");
  const failed = data["success"] === false;
  const result = objectField(data, "result");
  const error = objectField(data, "error");
  const output = stringField(result, "content") ?? stringField(error, "message") ?? stringField(data, "error") ?? "";
  return { type: "tool-result", ...optionalId(id), output, ...(failed ? { isError: true } : {}) };
}

function optionalId(id: string | undefined): { id?: string } {
  return id === undefined ? {} : { id };
}

/** Copilot's per-request usage record → normalized usage (its `cost` is premium requests, not USD). */
export function usageOf(record: Record<string, unknown> | undefined): Usage | undefined {
  if (record === undefined) return undefined;
  const usage: Record<string, number> = {};
  const input = numberField(record, "inputTokens");
  const output = numberField(record, "outputTokens");
  const cacheRead = numberField(record, "cacheReadTokens");
  const cacheWrite = numberField(record, "cacheWriteTokens");
  if (input !== undefined) usage["inputTokens"] = input;
  if (output !== undefined) usage["outputTokens"] = output;
  if (cacheRead !== undefined) usage["cacheReadTokens"] = cacheRead;
  if (cacheWrite !== undefined) usage["cacheWriteTokens"] = cacheWrite;
  return Object.keys(usage).length > 0 ? (usage as Usage) : undefined;
}
