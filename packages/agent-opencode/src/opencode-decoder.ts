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
import { OPENCODE_FAILURE_RULES } from "./opencode-failure-rules.js";

/** Event types that map to normalized events besides the conversation id. */
const MAPPED_TYPES: ReadonlySet<string> = new Set(["text", "tool_use", "step_finish", "error"]);

/** Kinds with nothing to normalize (reasoning is not the answer): raw without a diagnostic. */
const KNOWN_RAW_TYPES: ReadonlySet<string> = new Set(["step_start", "reasoning"]);

const SESSION_KEY = '"sessionID":"';

/**
 * Decodes `opencode run --format json`: `step_start`, `tool_use` (printed once the tool completed or
 * failed, with input and output), `text`, `reasoning`, `step_finish` (tokens, reason) and `error`.
 * Every line carries `sessionID`. opencode prints no final event: a `step_finish` whose reason is not
 * `tool-calls` ends the model's loop and is reported as `finished`.
 */
export class OpencodeDecoder implements AgentLineDecoder {
  private conversationId: string | undefined;
  private lastText: string | undefined;
  private readonly unknown: UnknownKinds;

  constructor(
    private readonly failureRules: readonly FailureRule[] = OPENCODE_FAILURE_RULES,
    diagnostic?: (message: string) => void,
  ) {
    this.unknown = new UnknownKinds("opencode", diagnostic);
  }

  decode(line: string): AgentEvent[] {
    // A step_start (or any unmapped line) of the current session says nothing new: keep it raw, unparsed.
    const type = leadingJsonType(line);
    if (type !== undefined && !MAPPED_TYPES.has(type) && this.isCurrentSession(line)) {
      if (!KNOWN_RAW_TYPES.has(type)) this.unknown.seen(type);
      return [lazyRawEvent(line)];
    }
    const value = parseJsonLine(line);
    if (value === undefined) return line.trim().length === 0 ? [] : [{ type: "raw", line }];
    const kind = value["type"];
    if (typeof kind === "string" && !MAPPED_TYPES.has(kind) && !KNOWN_RAW_TYPES.has(kind)) this.unknown.seen(kind);
    const events = this.conversation(jsonStringField(value, "sessionID"));
    this.map(value, line, events);
    return events.length > 0 ? events : [{ type: "raw", line, value }];
  }

  /** Appends the events of one parsed line to `events`. */
  private map(value: Record<string, unknown>, line: string, events: AgentEvent[]): void {
    const part = jsonObjectField(value, "part");
    switch (value["type"]) {
      case "text": {
        const text = jsonStringField(part, "text");
        if (!text) return;
        this.lastText = text;
        events.push({ type: "text", text });
        return;
      }
      case "tool_use":
        if (part !== undefined) events.push(...toolUse(part));
        return;
      case "step_finish": {
        if (part === undefined) return;
        const usage = usageOf(part);
        if (usage !== undefined) events.push({ type: "usage", usage });
        const reason = jsonStringField(part, "reason");
        if (reason !== undefined && reason !== "tool-calls") {
          events.push({ type: "finished", ...(this.lastText === undefined ? {} : { text: this.lastText }) });
        }
        return;
      }
      case "error": {
        const error = jsonObjectField(value, "error");
        const message =
          jsonStringField(jsonObjectField(error ?? {}, "data"), "message") ??
          jsonStringField(error, "name") ??
          "opencode reported an error";
        const match = classifyFailure(this.failureRules, line);
        events.push({ type: "failure", message, ...(match ? { classification: match.classification } : {}) });
        return;
      }
      default:
        return;
    }
  }

  /** Whether the line's first `sessionID` (opencode prints it before `part`) is the current one, without parsing. */
  private isCurrentSession(line: string): boolean {
    if (this.conversationId === undefined) return false;
    const key = line.indexOf(SESSION_KEY);
    if (key < 0 || key > 96) return false;
    const start = key + SESSION_KEY.length;
    return line.startsWith(this.conversationId, start) && line.charCodeAt(start + this.conversationId.length) === 34; /* " */
  }

  private conversation(id: string | undefined): AgentEvent[] {
    if (id === undefined || id === this.conversationId) return [];
    this.conversationId = id;
    return [{ type: "conversation", id }];
  }
}

function toolUse(part: Record<string, unknown>): AgentEvent[] {
  const name = jsonStringField(part, "tool");
  const state = jsonObjectField(part, "state");
  if (name === undefined || state === undefined) return [];
  const id = jsonStringField(part, "callID");
  const idField = id === undefined ? {} : { id };
  const events: AgentEvent[] = [{ type: "tool-call", ...idField, name, input: state["input"] ?? {} }];
  const status = jsonStringField(state, "status");
  if (status === "completed") events.push({ type: "tool-result", ...idField, output: jsonStringField(state, "output") ?? "" });
  else if (status === "error")
    events.push({ type: "tool-result", ...idField, output: jsonStringField(state, "error") ?? "", isError: true });
  return events;
}

/** opencode's per-step `tokens` and `cost` (USD) → normalized usage. */
function usageOf(part: Record<string, unknown>): Usage | undefined {
  const tokens = jsonObjectField(part, "tokens");
  if (tokens === undefined) return undefined;
  const cache = jsonObjectField(tokens, "cache");
  const usage: { -readonly [Key in Exclude<keyof Usage, "incomplete">]?: number } = {};
  let any = false;
  const input = jsonNumberField(tokens, "input");
  const output = jsonNumberField(tokens, "output");
  const reasoning = jsonNumberField(tokens, "reasoning");
  const cacheRead = jsonNumberField(cache, "read");
  const cacheWrite = jsonNumberField(cache, "write");
  const cost = jsonNumberField(part, "cost");
  // Plain assignments (no helper closure): this runs for every step of every turn.
  if (input !== undefined) {
    usage.inputTokens = input;
    any = true;
  }
  if (output !== undefined) {
    usage.outputTokens = output;
    any = true;
  }
  if (reasoning !== undefined) {
    usage.reasoningTokens = reasoning;
    any = true;
  }
  if (cacheRead !== undefined) {
    usage.cacheReadTokens = cacheRead;
    any = true;
  }
  if (cacheWrite !== undefined) {
    usage.cacheWriteTokens = cacheWrite;
    any = true;
  }
  if (cost !== undefined) {
    usage.costUsd = cost;
    any = true;
  }
  return any ? usage : undefined;
}
