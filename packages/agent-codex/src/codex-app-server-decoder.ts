import { classifyFailure, jsonObject, jsonString, parseJsonLine, UnknownKinds } from "@outpost/core";
import type { AgentEvent, AgentLineDecoder, FailureRule, Usage } from "@outpost/core";
import { OPENING_REQUEST } from "./codex-app-server-protocol.js";
import { appServerToolCall, appServerToolResult } from "./codex-app-server-items.js";
import { CODEX_FAILURE_RULES } from "./codex-failure-rules.js";
import { codexUsage } from "./codex-decoder.js";

/**
 * Decodes the output of `codex app-server` (JSON-RPC) into the same events as `codex exec --json`: the answer
 * to the thread request → conversation (the thread id), tool items → tool call + result, `agentMessage` items →
 * text, `thread/tokenUsage/updated` → usage, `turn/completed` → finished (with a failure when the turn failed),
 * a refused opening request → failure + finished. Answers to steers are the session's; the rest is `raw`.
 */
export class CodexAppServerDecoder implements AgentLineDecoder {
  private readonly started = new Set<string>();
  private readonly unknown: UnknownKinds;
  private readonly continued: boolean;
  private lastText: string | undefined;
  private turnId: string | undefined;
  private total: Record<string, unknown> | undefined;

  constructor(
    private readonly rules: readonly FailureRule[] = CODEX_FAILURE_RULES,
    options: { readonly continued?: boolean; readonly diagnostic?: (message: string) => void } = {},
  ) {
    this.unknown = new UnknownKinds("codex", options.diagnostic);
    this.continued = options.continued === true;
  }

  decode(line: string): AgentEvent[] {
    const value = parseJsonLine(line);
    if (!value) return line.trim() === "" ? [] : [{ type: "raw", line }];
    if (value["method"] === undefined && value["id"] !== undefined) return this.response(line, value);
    const params = jsonObject(value["params"]);
    switch (value["method"]) {
      case "turn/started":
        this.turnId ??= jsonString(jsonObject(params["turn"])["id"]);
        return [{ type: "raw", line, value }];
      case "item/started":
        return this.itemStarted(line, value, jsonObject(params["item"]));
      case "item/completed":
        return this.itemCompleted(line, value, jsonObject(params["item"]));
      case "thread/tokenUsage/updated":
        // A resumed thread first reports its earlier turns' total: only this turn's updates count.
        if (this.turnId !== undefined && params["turnId"] === this.turnId)
          this.total = jsonObject(jsonObject(params["tokenUsage"])["total"]);
        return [{ type: "raw", line, value }];
      case "turn/completed":
        return this.turnCompleted(line, jsonObject(params["turn"]));
      default:
        if (!KNOWN_NOTIFICATIONS.has(String(value["method"]))) this.unknown.seen(String(value["method"]));
        return [{ type: "raw", line, value }];
    }
  }

  private response(line: string, value: Record<string, unknown>): AgentEvent[] {
    const id = value["id"];
    const opening = id === OPENING_REQUEST.initialize || id === OPENING_REQUEST.thread || id === OPENING_REQUEST.turn;
    if (!opening) return [{ type: "raw", line, value }];
    const error = value["error"] === undefined ? undefined : jsonObject(value["error"]);
    if (error !== undefined) {
      const message = `codex could not open the turn: ${jsonString(error["message"]) ?? JSON.stringify(error)}`;
      const match = classifyFailure(this.rules, line);
      return [
        { type: "failure", message, ...(match ? { classification: match.classification } : {}) },
        { type: "finished", text: message, isError: true },
      ];
    }
    const result = jsonObject(value["result"]);
    if (id === OPENING_REQUEST.turn) this.turnId ??= jsonString(jsonObject(result["turn"])["id"]);
    const threadId = id === OPENING_REQUEST.thread ? jsonString(jsonObject(result["thread"])["id"]) : undefined;
    return threadId === undefined ? [{ type: "raw", line, value }] : [{ type: "conversation", id: threadId }];
  }

  private itemStarted(line: string, value: Record<string, unknown>, item: Record<string, unknown>): AgentEvent[] {
    const call = appServerToolCall(item);
    if (!call) return this.otherItem(line, value, item);
    if (call.id !== undefined) this.started.add(call.id);
    return [call];
  }

  private itemCompleted(line: string, value: Record<string, unknown>, item: Record<string, unknown>): AgentEvent[] {
    if (item["type"] === "agentMessage" && typeof item["text"] === "string") {
      this.lastText = item["text"];
      return [{ type: "text", text: item["text"] }];
    }
    const call = appServerToolCall(item);
    if (!call) return this.otherItem(line, value, item);
    // Items reported only once complete: announce the call before its result.
    const events: AgentEvent[] = call.id !== undefined && this.started.delete(call.id) ? [] : [call];
    events.push(appServerToolResult(item));
    return events;
  }

  private otherItem(line: string, value: Record<string, unknown>, item: Record<string, unknown>): AgentEvent[] {
    if (!KNOWN_OTHER_ITEMS.has(String(item["type"]))) this.unknown.seen(`${String(value["method"])}/${String(item["type"])}`);
    return [{ type: "raw", line, value }];
  }

  private turnCompleted(line: string, turn: Record<string, unknown>): AgentEvent[] {
    const lastText = this.lastText;
    if (turn["status"] === "completed") {
      // The running total of the thread: a continued turn's own usage comes from the captured rollout.
      const usage: Usage | undefined = this.continued ? { incomplete: true } : this.total && codexUsage(camelUsage(this.total));
      return [
        ...(usage ? [{ type: "usage", usage } as const] : []),
        { type: "finished", ...(lastText === undefined ? {} : { text: lastText }), ...(usage ? { usage } : {}) },
      ];
    }
    const message = jsonString(jsonObject(turn["error"])["message"]) ?? `the turn ended ${String(turn["status"])}`;
    const match = classifyFailure(this.rules, line);
    return [
      { type: "failure", message, ...(match ? { classification: match.classification } : {}) },
      { type: "finished", text: message, isError: true },
    ];
  }
}

/** app-server's camelCase token counters under `codex exec`'s names. */
function camelUsage(total: Record<string, unknown>): Record<string, unknown> {
  return {
    input_tokens: total["inputTokens"],
    output_tokens: total["outputTokens"],
    cached_input_tokens: total["cachedInputTokens"],
    cache_write_input_tokens: total["cacheWriteInputTokens"],
    reasoning_output_tokens: total["reasoningOutputTokens"],
  };
}

/** Notifications that carry nothing to normalize (progress, deltas of items reported whole on completion, status). */
const KNOWN_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "error",
  "warning",
  "configWarning",
  "deprecationNotice",
  "thread/started",
  "thread/status/changed",
  "thread/settings/updated",
  "thread/name/updated",
  "thread/goal/cleared",
  "thread/goal/updated",
  "thread/compacted",
  "turn/diff/updated",
  "turn/plan/updated",
  "item/agentMessage/delta",
  "item/plan/delta",
  "item/reasoning/summaryTextDelta",
  "item/reasoning/summaryPartAdded",
  "item/reasoning/textDelta",
  "item/commandExecution/outputDelta",
  "item/commandExecution/terminalInteraction",
  "item/fileChange/outputDelta",
  "item/fileChange/patchUpdated",
  "item/mcpToolCall/progress",
  "serverRequest/resolved",
  "account/rateLimits/updated",
  "remoteControl/status/changed",
  "mcpServer/startupStatus/updated",
  "skills/changed",
  "model/rerouted",
]);

/** Item kinds that carry nothing to normalize. */
const KNOWN_OTHER_ITEMS: ReadonlySet<string> = new Set([
  "userMessage",
  "agentMessage",
  "reasoning",
  "plan",
  "hookPrompt",
  "contextCompaction",
  "imageView",
]);
