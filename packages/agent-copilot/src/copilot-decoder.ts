import {
  classifyFailure,
  parseJsonLine,
  leadingJsonType,
  lazyRawEvent,
  jsonObjectField,
  jsonStringField,
  jsonNumberField,
  UnknownKinds,
} from "@outpost/core";
import type { AgentEvent, AgentLineDecoder, FailureRule, Usage } from "@outpost/core";
import { COPILOT_FAILURE_RULES } from "./copilot-failure-rules.js";

/** Event types that map to normalized events; every other line is kept as `raw` without being parsed. */
const MAPPED_TYPES: ReadonlySet<string> = new Set([
  "user.message",
  "assistant.message_delta",
  "assistant.message",
  "tool.execution_start",
  "tool.execution_complete",
  "session.usage_record",
  "assistant.usage",
  "session.start",
  "session.resume",
  "session.error",
  "result",
]);

/** Kinds recorded from 1.0.92 and 1.0.102 that carry nothing to normalize: kept raw without a diagnostic. */
const KNOWN_RAW_TYPES: ReadonlySet<string> = new Set([
  "session.skills_loaded",
  "session.mcp_servers_loaded",
  "session.tools_updated",
  "session.info",
  "session.shutdown",
  "system.message",
  "assistant.turn_start",
  "assistant.turn_end",
  "assistant.turn_retry",
  "assistant.idle",
  "assistant.message_start",
  "assistant.tool_call_delta",
  "model.call_start",
  "model.call_finished",
  "model.call_final_result",
  "model.call_failure",
]);

/**
 * Decodes `copilot --output-format json` (JSONL, one `{type, data, id, timestamp}` per line).
 * Tool calls are taken from `tool.execution_start` (what actually ran), not from the model's
 * `toolRequests`, so a call is reported once. Lines that map to nothing are kept as `raw`; kinds it does
 * not know are also reported once per turn through the diagnostic channel. Copilot prints no token counts:
 * `finished` says usage is incomplete unless a usage line came (the session's totals replace it on capture).
 */
export class CopilotDecoder implements AgentLineDecoder {
  private conversationId: string | undefined;
  private lastText: string | undefined;
  private sawUsage = false;
  private readonly unknown: UnknownKinds;

  constructor(
    private readonly failureRules: readonly FailureRule[] = COPILOT_FAILURE_RULES,
    diagnostic?: (message: string) => void,
  ) {
    this.unknown = new UnknownKinds("copilot", diagnostic);
  }

  decode(line: string): AgentEvent[] {
    const type = leadingJsonType(line);
    if (type !== undefined && !MAPPED_TYPES.has(type)) {
      if (!KNOWN_RAW_TYPES.has(type)) this.unknown.seen(type);
      return [lazyRawEvent(line)];
    }
    const value = parseJsonLine(line);
    if (value === undefined) return line.trim().length === 0 ? [] : [{ type: "raw", line }];
    const kind = value["type"];
    if (typeof kind === "string" && !MAPPED_TYPES.has(kind)) {
      if (!KNOWN_RAW_TYPES.has(kind)) this.unknown.seen(kind);
      return [{ type: "raw", line, value }];
    }
    const events = this.map(value, line);
    return events.length > 0 ? events : [{ type: "raw", line, value }];
  }

  private map(value: Record<string, unknown>, line: string): AgentEvent[] {
    const data = jsonObjectField(value, "data");
    switch (value["type"]) {
      case "user.message": {
        const text = jsonStringField(data, "content");
        return text === undefined ? [] : [{ type: "prompt", text }];
      }
      case "assistant.message_delta": {
        const text = jsonStringField(data, "deltaContent");
        return text ? [{ type: "text", text, delta: true }] : [];
      }
      case "assistant.message": {
        const text = jsonStringField(data, "content");
        if (!text) return [];
        this.lastText = text;
        return [{ type: "text", text }];
      }
      case "tool.execution_start": {
        const name = jsonStringField(data, "toolName");
        if (name === undefined) return [];
        return [{ type: "tool-call", ...optionalId(jsonStringField(data, "toolCallId")), name, input: data?.["arguments"] ?? {} }];
      }
      case "tool.execution_complete":
        return data === undefined ? [] : [toolResult(data)];
      case "session.usage_record": {
        const usage = usageOf(jsonObjectField(data ?? {}, "usage"));
        if (usage !== undefined) this.sawUsage = true;
        return usage === undefined ? [] : [{ type: "usage", usage }];
      }
      case "assistant.usage": {
        // Ephemeral per-call usage; 1.0.102 did not print it in BYOK runs, but its shape is known from the CLI.
        const usage = usageOf(data);
        if (usage !== undefined) this.sawUsage = true;
        return usage === undefined ? [] : [{ type: "usage", usage }];
      }
      case "session.start":
      case "session.resume":
        return this.conversation(jsonStringField(data, "sessionId"));
      case "session.error": {
        const message = jsonStringField(data, "message") ?? "Copilot CLI reported an error";
        const match = classifyFailure(this.failureRules, line);
        return [{ type: "failure", message, ...(match ? { classification: match.classification } : {}) }];
      }
      case "result": {
        const exitCode = jsonNumberField(value, "exitCode");
        return [
          ...this.conversation(jsonStringField(value, "sessionId")),
          {
            type: "finished",
            ...(this.lastText === undefined ? {} : { text: this.lastText }),
            ...(this.sawUsage ? {} : { usage: { incomplete: true } }),
            isError: exitCode !== 0,
          },
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
  const id = jsonStringField(data, "toolCallId");
  const failed = data["success"] === false;
  const result = jsonObjectField(data, "result");
  const error = jsonObjectField(data, "error");
  const output = jsonStringField(result, "content") ?? jsonStringField(error, "message") ?? jsonStringField(data, "error") ?? "";
  return { type: "tool-result", ...optionalId(id), output, ...(failed ? { isError: true } : {}) };
}

function optionalId(id: string | undefined): { id?: string } {
  return id === undefined ? {} : { id };
}

/** Copilot's per-request usage record → normalized usage (its `cost` is premium requests, not USD). */
export function usageOf(record: Record<string, unknown> | undefined): Usage | undefined {
  if (record === undefined) return undefined;
  const usage: Record<string, number> = {};
  const input = jsonNumberField(record, "inputTokens");
  const output = jsonNumberField(record, "outputTokens");
  const cacheRead = jsonNumberField(record, "cacheReadTokens");
  const cacheWrite = jsonNumberField(record, "cacheWriteTokens");
  if (input !== undefined) usage["inputTokens"] = input;
  if (output !== undefined) usage["outputTokens"] = output;
  if (cacheRead !== undefined) usage["cacheReadTokens"] = cacheRead;
  if (cacheWrite !== undefined) usage["cacheWriteTokens"] = cacheWrite;
  return Object.keys(usage).length > 0 ? usage : undefined;
}
