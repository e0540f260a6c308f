import { parseJsonLine, jsonObjectField, jsonStringField } from "@outpost/core";
import type { AgentEvent, AgentLineDecoder } from "@outpost/core";

/**
 * Decodes `kimi --prompt … --output-format stream-json`: one chat message per line, as documented by
 * Kimi Code ("Print mode" / `kimi` command reference): `{"role":"assistant","content":…,"tool_calls":[…]}`
 * and `{"role":"tool","tool_call_id":…,"content":…}`. `content` is a string or a list of parts
 * (`{"type":"text","text"}`, `{"type":"think","think"}`). The stream carries no session id, usage or
 * final event; everything else (notifications, plan displays, provider errors printed as text) stays `raw`.
 */
export class KimiDecoder implements AgentLineDecoder {
  decode(line: string): AgentEvent[] {
    const value = parseJsonLine(line);
    if (value === undefined) return line.trim().length === 0 ? [] : [{ type: "raw", line }];
    const events = map(value);
    return events.length > 0 ? events : [{ type: "raw", line, value }];
  }
}

function map(message: Record<string, unknown>): AgentEvent[] {
  switch (message["role"]) {
    case "assistant": {
      const events: AgentEvent[] = [];
      const text = contentText(message["content"]);
      if (text) events.push({ type: "text", text });
      const calls = message["tool_calls"];
      if (Array.isArray(calls)) for (const call of calls) events.push(...toolCall(call));
      return events;
    }
    case "tool": {
      const id = jsonStringField(message, "tool_call_id");
      const output = contentText(message["content"]);
      if (output === undefined) return [];
      return [{ type: "tool-result", ...(id === undefined ? {} : { id }), output }];
    }
    case "user": {
      const text = contentText(message["content"]);
      return text === undefined ? [] : [{ type: "prompt", text }];
    }
    default:
      return [];
  }
}

function toolCall(call: unknown): AgentEvent[] {
  if (typeof call !== "object" || call === null) return [];
  const record = call as Record<string, unknown>;
  const fn = jsonObjectField(record, "function");
  const name = jsonStringField(fn, "name");
  if (name === undefined) return [];
  const id = jsonStringField(record, "id");
  return [{ type: "tool-call", ...(id === undefined ? {} : { id }), name, input: parseArguments(fn?.["arguments"]) }];
}

// Arguments arrive as a JSON string (OpenAI style); a string that does not parse is kept as it is.
function parseArguments(value: unknown): unknown {
  if (typeof value !== "string") return value ?? {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Text of a string content or of the `text` parts of a part list; thinking parts are not answer text. */
function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text: string | undefined;
  for (const part of content) {
    if (typeof part !== "object" || part === null) continue;
    const record = part as Record<string, unknown>;
    if (record["type"] === "text" && typeof record["text"] === "string") text = (text ?? "") + record["text"];
  }
  return text;
}
