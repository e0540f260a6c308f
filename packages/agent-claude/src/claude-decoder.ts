import { classifyFailure, parseJsonLine, isJsonObject, jsonObject, jsonString, jsonNumber, UnknownKinds } from "@outpost/core";
import type { AgentEvent, AgentLineDecoder, FailureRule, Usage } from "@outpost/core";
import { CLAUDE_FAILURE_RULES } from "./claude-failure-rules.js";

/** `system` lines with nothing to normalize: kept raw without a diagnostic. */
const KNOWN_SYSTEM_SUBTYPES: ReadonlySet<string> = new Set([
  "init",
  "api_retry",
  "compact_boundary",
  "status",
  "hook_response",
  "hook_started",
  "hook_progress",
]);

/**
 * Decodes `claude -p --output-format stream-json --verbose` lines: `system/init` → conversation, `assistant`
 * blocks → text / tool calls, `user` tool results, `result` → usage + finished. Anything else is kept as `raw`.
 */
export class ClaudeDecoder implements AgentLineDecoder {
  // A refused API call shows up twice (synthetic assistant message, then the result): report it once.
  private failed = false;
  private readonly unknown: UnknownKinds;

  constructor(
    private readonly rules: readonly FailureRule[] = CLAUDE_FAILURE_RULES,
    diagnostic?: (message: string) => void,
  ) {
    this.unknown = new UnknownKinds("claude", diagnostic);
  }

  decode(line: string): AgentEvent[] {
    const value = parseJsonLine(line);
    if (!value) return line.trim() === "" ? [] : [{ type: "raw", line }];
    switch (value["type"]) {
      case "system":
        if (value["subtype"] === "init" && typeof value["session_id"] === "string")
          return [{ type: "conversation", id: value["session_id"] }];
        if (!KNOWN_SYSTEM_SUBTYPES.has(String(value["subtype"]))) this.unknown.seen(`system/${String(value["subtype"])}`);
        return [{ type: "raw", line, value }];
      case "assistant":
        return this.assistant(line, value);
      case "user":
        return user(line, value);
      case "result":
        return this.result(line, value);
      case "stream_event":
      case "rate_limit_event":
        // Known, nothing to normalize (partial-message stream events, rate-limit notices).
        return [{ type: "raw", line, value }];
      default:
        this.unknown.seen(String(value["type"]));
        return [{ type: "raw", line, value }];
    }
  }

  private assistant(line: string, value: Record<string, unknown>): AgentEvent[] {
    const blocks = contentBlocks(jsonObject(value["message"])["content"]);
    if (value["is_api_error_message"] === true) {
      this.failed = true;
      return [this.failure(blocks.map((block) => jsonString(block["text"]) ?? "").join("\n") || "API error", line)];
    }
    const events: AgentEvent[] = [];
    let unknown = false;
    for (const block of blocks) {
      const kind = block["type"];
      if (kind === "text" && typeof block["text"] === "string") events.push({ type: "text", text: block["text"] });
      else if (kind === "tool_use" && typeof block["name"] === "string") {
        events.push({ type: "tool-call", ...optionalId(block["id"]), name: block["name"], input: block["input"] ?? {} });
      } else unknown = true;
    }
    // Thinking and other blocks have no normalized event: keep the line so nothing is lost.
    if (unknown || events.length === 0) events.push({ type: "raw", line, value });
    return events;
  }

  private result(line: string, value: Record<string, unknown>): AgentEvent[] {
    const usage = claudeUsage(value);
    const isError = value["is_error"] === true || (typeof value["subtype"] === "string" && value["subtype"].startsWith("error"));
    const resultText = jsonString(value["result"]);
    const events: AgentEvent[] = [];
    if (usage) events.push({ type: "usage", usage });
    if (isError && !this.failed) events.push(this.failure(resultText ?? String(value["subtype"] ?? "error"), line));
    this.failed = false;
    events.push({
      type: "finished",
      ...(resultText === undefined ? {} : { text: resultText }),
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

function user(line: string, value: Record<string, unknown>): AgentEvent[] {
  const content = jsonObject(value["message"])["content"];
  if (typeof content === "string") return [{ type: "prompt", text: content }];
  const events: AgentEvent[] = [];
  for (const block of contentBlocks(content)) {
    if (block["type"] === "tool_result") {
      events.push({
        type: "tool-result",
        ...optionalId(block["tool_use_id"]),
        output: flattenOutput(block["content"]),
        ...(block["is_error"] === true ? { isError: true } : {}),
      });
    } else if (block["type"] === "text" && typeof block["text"] === "string") events.push({ type: "prompt", text: block["text"] });
  }
  return events.length > 0 ? events : [{ type: "raw", line, value }];
}

/** Turn totals from a `result` line; undefined when it carries none. */
export function claudeUsage(value: Record<string, unknown>): Usage | undefined {
  if (!isJsonObject(value["usage"])) return undefined;
  const usage = value["usage"];
  const fields: Record<string, number | undefined> = {
    inputTokens: jsonNumber(usage["input_tokens"]),
    outputTokens: jsonNumber(usage["output_tokens"]),
    cacheReadTokens: jsonNumber(usage["cache_read_input_tokens"]),
    cacheWriteTokens: jsonNumber(usage["cache_creation_input_tokens"]),
    costUsd: jsonNumber(value["total_cost_usd"]),
  };
  const present = Object.entries(fields).filter(([, field]) => field !== undefined);
  return present.length > 0 ? Object.fromEntries(present) : undefined;
}

function contentBlocks(content: unknown): Record<string, unknown>[] {
  return Array.isArray(content) ? content.filter(isJsonObject) : [];
}

function flattenOutput(content: unknown): string {
  if (typeof content === "string") return content;
  return contentBlocks(content)
    .map((block) => jsonString(block["text"]) ?? "")
    .join("\n");
}

function optionalId(id: unknown): { id?: string } {
  return typeof id === "string" ? { id } : {};
}
