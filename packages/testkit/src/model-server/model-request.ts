/** The four wire APIs the scripted model server speaks. */
export type ModelApi = "anthropic-messages" | "openai-responses" | "openai-chat" | "gemini";

/** A tool the request offers the model, by name, with its declared kind. */
export interface OfferedTool {
  readonly name: string;
  /** `function` for JSON-argument tools; `custom` for free-form tools (OpenAI Responses `type: "custom"`). */
  readonly kind: "function" | "custom";
  /** JSON schema of the arguments, when declared. */
  readonly schema?: unknown;
}

/** What a script step or responder is told about one model request, the same for every API. */
export interface ModelRequest {
  readonly api: ModelApi;
  readonly model: string;
  readonly stream: boolean;
  readonly tools: readonly OfferedTool[];
  /** The last input is a tool result (the model is asked to continue after its tool call). */
  readonly afterToolResult: boolean;
  /** Text of the last user message (tool results excluded). */
  readonly prompt: string;
  /** Every text of the conversation sent with the request (system, messages, tool results), joined. */
  readonly transcript: string;
  /** Request path without the query string. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body. */
  readonly body: Record<string, unknown>;
}

/** Names of the tools a request offers. */
export function toolNames(request: ModelRequest): string[] {
  return request.tools.map((tool) => tool.name);
}

/** Collects every string found under `value`, depth first, so history checks see all text however nested. */
export function collectText(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectText(item, into);
  else if (value && typeof value === "object") for (const item of Object.values(value)) collectText(item, into);
  return into;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
