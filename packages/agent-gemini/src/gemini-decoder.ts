import { classifyFailure, parseJsonLine, isJsonObject, jsonObject, jsonString, jsonNumber, UnknownKinds } from "@outpost/core";
import type { AgentEvent, AgentLineDecoder, FailureRule, Usage } from "@outpost/core";
import { GEMINI_FAILURE_RULES } from "./gemini-failure-rules.js";

/**
 * Decodes `gemini --output-format stream-json` lines: `init` → conversation, `message` → prompt / text deltas,
 * `tool_use` / `tool_result`, `error` → failure, `result` → usage + finished. Anything else is kept as `raw`.
 */
export class GeminiDecoder implements AgentLineDecoder {
  private text = "";
  private readonly unknown: UnknownKinds;

  constructor(
    private readonly rules: readonly FailureRule[] = GEMINI_FAILURE_RULES,
    diagnostic?: (message: string) => void,
  ) {
    this.unknown = new UnknownKinds("gemini", diagnostic);
  }

  decode(line: string): AgentEvent[] {
    const value = parseJsonLine(line);
    if (!value) return line.trim() === "" ? [] : [{ type: "raw", line }];
    switch (value["type"]) {
      case "init":
        return typeof value["session_id"] === "string"
          ? [{ type: "conversation", id: value["session_id"] }]
          : [{ type: "raw", line, value }];
      case "message":
        return this.message(line, value);
      case "tool_use":
        return typeof value["tool_name"] === "string"
          ? [{ type: "tool-call", ...optionalId(value["tool_id"]), name: value["tool_name"], input: value["parameters"] ?? {} }]
          : [{ type: "raw", line, value }];
      case "tool_result":
        return [toolResult(value)];
      case "error":
        return [this.failure(jsonString(value["message"]) ?? "error", line)];
      case "result":
        return this.result(line, value);
      default:
        this.unknown.seen(String(value["type"]));
        return [{ type: "raw", line, value }];
    }
  }

  private message(line: string, value: Record<string, unknown>): AgentEvent[] {
    const content = jsonString(value["content"]);
    if (content === undefined) return [{ type: "raw", line, value }];
    if (value["role"] === "user") return [{ type: "prompt", text: content }];
    if (value["role"] !== "assistant") return [{ type: "raw", line, value }];
    const delta = value["delta"] === true;
    this.text = delta ? this.text + content : content;
    return [{ type: "text", text: content, ...(delta ? { delta: true } : {}) }];
  }

  private result(line: string, value: Record<string, unknown>): AgentEvent[] {
    const usage = geminiUsage(jsonObject(value["stats"]));
    const isError = value["status"] !== "success";
    const events: AgentEvent[] = [];
    if (usage) events.push({ type: "usage", usage });
    let message: string | undefined;
    if (isError) {
      message = jsonString(jsonObject(value["error"])["message"]) ?? `status ${String(value["status"])}`;
      events.push(this.failure(message, line));
    }
    const finalText = isError ? message : this.text;
    // A stream may hold several turns: each result closes one.
    this.text = "";
    events.push({
      type: "finished",
      ...(finalText ? { text: finalText } : {}),
      ...(usage ? { usage } : {}),
      ...(isError ? { isError: true } : {}),
    });
    return events;
  }

  private failure(message: string, line: string): AgentEvent {
    const match = classifyFailure(this.rules, line);
    return { type: "failure", message, ...(match ? { classification: match.classification } : {}) };
  }
}

function toolResult(value: Record<string, unknown>): AgentEvent {
  const error = jsonObject(value["error"]);
  const output = jsonString(value["output"]) ?? jsonString(error["message"]) ?? jsonString(value["status"]) ?? "";
  return {
    type: "tool-result",
    ...optionalId(value["tool_id"]),
    output,
    ...(value["status"] === "error" || isJsonObject(value["error"]) ? { isError: true } : {}),
  };
}

/** Turn totals from the `result` line's `stats` (all models, the router's call included). */
export function geminiUsage(stats: Record<string, unknown>): Usage | undefined {
  const fields: Record<string, number | undefined> = {
    inputTokens: jsonNumber(stats["input_tokens"]),
    outputTokens: jsonNumber(stats["output_tokens"]),
    cacheReadTokens: jsonNumber(stats["cached"]),
  };
  const present = Object.entries(fields).filter(([, field]) => field !== undefined);
  return present.length > 0 ? Object.fromEntries(present) : undefined;
}

function optionalId(id: unknown): { id?: string } {
  return typeof id === "string" ? { id } : {};
}
