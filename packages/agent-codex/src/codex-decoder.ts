import { classifyFailure, parseJsonLine, isJsonObject, jsonObject, jsonString, jsonNumber, UnknownKinds } from "@outpost/core";
import type { AgentEvent, AgentLineDecoder, FailureRule, Usage } from "@outpost/core";
import { CODEX_FAILURE_RULES } from "./codex-failure-rules.js";

/**
 * Decodes `codex exec --json` lines: `thread.started` → conversation, tool items (`command_execution`,
 * `file_change`, `mcp_tool_call`, `web_search`) → tool call + result, `agent_message` → text,
 * `turn.completed` → usage + finished, `turn.failed` → failure + finished. Anything else is kept as `raw`;
 * kinds it does not know are also reported once per turn through the diagnostic channel.
 */
export class CodexDecoder implements AgentLineDecoder {
  private readonly started = new Set<string>();
  private lastText: string | undefined;
  private readonly unknown: UnknownKinds;
  private readonly continued: boolean;

  constructor(
    private readonly rules: readonly FailureRule[] = CODEX_FAILURE_RULES,
    options: CodexDecoderOptions = {},
  ) {
    this.unknown = new UnknownKinds("codex", options.diagnostic);
    this.continued = options.continued === true;
  }

  decode(line: string): AgentEvent[] {
    const value = parseJsonLine(line);
    if (!value) return line.trim() === "" ? [] : [{ type: "raw", line }];
    switch (value["type"]) {
      case "thread.started":
        return typeof value["thread_id"] === "string" ? [{ type: "conversation", id: value["thread_id"] }] : [{ type: "raw", line, value }];
      case "item.started":
        return this.itemStarted(line, value);
      case "item.completed":
        return this.itemCompleted(line, value);
      case "turn.completed":
        return this.turnCompleted(value);
      case "turn.failed":
        return this.turnFailed(line, value);
      case "turn.started":
      case "item.updated":
      case "error":
        // Known, nothing to normalize: progress, and the retry notices that precede `turn.failed`.
        return [{ type: "raw", line, value }];
      default:
        this.unknown.seen(String(value["type"]));
        return [{ type: "raw", line, value }];
    }
  }

  private itemStarted(line: string, value: Record<string, unknown>): AgentEvent[] {
    const item = jsonObject(value["item"]);
    const call = toolCall(item);
    if (!call) return this.otherItem(line, value, item);
    if (call.id !== undefined) this.started.add(call.id);
    return [call];
  }

  private itemCompleted(line: string, value: Record<string, unknown>): AgentEvent[] {
    const item = jsonObject(value["item"]);
    if (item["type"] === "agent_message" && typeof item["text"] === "string") {
      this.lastText = item["text"];
      return [{ type: "text", text: item["text"] }];
    }
    const call = toolCall(item);
    if (!call) return this.otherItem(line, value, item);
    // Some items (file changes) are only reported once complete: announce the call before its result.
    const events: AgentEvent[] = call.id !== undefined && this.started.delete(call.id) ? [] : [call];
    events.push(toolResult(item));
    return events;
  }

  private otherItem(line: string, value: Record<string, unknown>, item: Record<string, unknown>): AgentEvent[] {
    if (!KNOWN_OTHER_ITEMS.has(String(item["type"]))) this.unknown.seen(`${String(value["type"])}/${String(item["type"])}`);
    return [{ type: "raw", line, value }];
  }

  private turnCompleted(value: Record<string, unknown>): AgentEvent[] {
    // `turn.completed` carries the thread's running total: on a continued thread it includes every earlier
    // turn, so it is not this turn's usage. The captured rollout gives the turn's own (transcriptUsage).
    const usage = this.continued ? ({ incomplete: true } as const) : codexUsage(jsonObject(value["usage"]));
    const lastText = this.lastText;
    this.endTurn();
    return [
      ...(usage ? [{ type: "usage", usage } as const] : []),
      { type: "finished", ...(lastText === undefined ? {} : { text: lastText }), ...(usage ? { usage } : {}) },
    ];
  }

  private turnFailed(line: string, value: Record<string, unknown>): AgentEvent[] {
    const message = jsonString(jsonObject(value["error"])["message"]) ?? "turn failed";
    const match = classifyFailure(this.rules, line);
    this.endTurn();
    return [
      { type: "failure", message, ...(match ? { classification: match.classification } : {}) },
      { type: "finished", text: message, isError: true },
    ];
  }

  // A stream may hold several turns: forget what the finished one left open.
  private endTurn(): void {
    this.started.clear();
    this.lastText = undefined;
    this.unknown.reset();
  }
}

export interface CodexDecoderOptions {
  /** The turn continues a thread (`exec resume` / `exec fork`): its `turn.completed` totals are not its own. */
  readonly continued?: boolean;
  readonly diagnostic?: (message: string) => void;
}

/** Item kinds that carry nothing to normalize (reasoning summaries, plans, item-level errors). */
const KNOWN_OTHER_ITEMS: ReadonlySet<string> = new Set(["agent_message", "reasoning", "todo_list", "error"]);

type ToolCallEvent = Extract<AgentEvent, { type: "tool-call" }>;

/** The tool call an item stands for, named after the tool the model called; undefined for non-tool items. */
function toolCall(item: Record<string, unknown>): ToolCallEvent | undefined {
  const id = typeof item["id"] === "string" ? { id: item["id"] } : {};
  switch (item["type"]) {
    case "command_execution":
      return { type: "tool-call", ...id, name: "shell", input: { command: item["command"] } };
    case "file_change":
      return { type: "tool-call", ...id, name: "apply_patch", input: { changes: item["changes"] } };
    case "mcp_tool_call":
      return {
        type: "tool-call",
        ...id,
        name: `${jsonString(item["server"]) ?? "mcp"}.${jsonString(item["tool"]) ?? "tool"}`,
        input: item["arguments"] ?? {},
      };
    case "web_search":
      return { type: "tool-call", ...id, name: "web_search", input: { query: item["query"] } };
    default:
      return undefined;
  }
}

function toolResult(item: Record<string, unknown>): AgentEvent {
  const id = typeof item["id"] === "string" ? { id: item["id"] } : {};
  const failed =
    item["status"] === "failed" || (typeof item["exit_code"] === "number" && item["exit_code"] !== 0) || isJsonObject(item["error"]);
  const output =
    jsonString(item["aggregated_output"]) ??
    jsonString(jsonObject(item["error"])["message"]) ??
    (item["result"] === undefined ? undefined : JSON.stringify(item["result"])) ??
    jsonString(item["status"]) ??
    "";
  return { type: "tool-result", ...id, output, ...(failed ? { isError: true } : {}) };
}

/** Turn usage from `turn.completed`; undefined when it carries no counter. */
export function codexUsage(usage: Record<string, unknown>): Usage | undefined {
  const fields: Record<string, number | undefined> = {
    inputTokens: jsonNumber(usage["input_tokens"]),
    outputTokens: jsonNumber(usage["output_tokens"]),
    cacheReadTokens: jsonNumber(usage["cached_input_tokens"]),
    cacheWriteTokens: jsonNumber(usage["cache_write_input_tokens"]),
    reasoningTokens: jsonNumber(usage["reasoning_output_tokens"]),
  };
  const present = Object.entries(fields).filter(([, field]) => field !== undefined);
  return present.length > 0 ? Object.fromEntries(present) : undefined;
}
