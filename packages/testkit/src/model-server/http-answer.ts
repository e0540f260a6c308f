import type { ModelApi, ModelRequest } from "./model-request.js";
import type { ModelReply } from "./script-step.js";

/** What the server writes back: chunks are flushed one by one (SSE events) so streaming clients see them arrive. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly chunks: readonly string[];
}

/** One wire API: recognizes its routes, normalizes its requests, renders replies in its shape. */
export interface ModelProtocol {
  readonly api: ModelApi;
  /** True when this protocol serves `POST <path>` (path without query). */
  matches(path: string): boolean;
  parse(body: Record<string, unknown>, path: string, query: Record<string, string>, headers: Record<string, string>): ModelRequest;
  render(reply: ModelReply, request: ModelRequest): HttpAnswer;
  /**
   * Requests the CLI makes on the side (titles without tools, JSON-schema helpers, token counts):
   * answered here without consuming a script step. Undefined for a real turn request.
   */
  side(request: ModelRequest): HttpAnswer | undefined;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): HttpAnswer {
  return { status, headers: { "content-type": "application/json", ...headers }, chunks: [JSON.stringify(value)] };
}

export function sse(chunks: string[], headers: Record<string, string> = {}): HttpAnswer {
  return {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", ...headers },
    chunks,
  };
}

/** One SSE event; `event` is omitted for APIs that send bare `data:` lines. */
export function sseEvent(event: string | undefined, data: unknown): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${payload}\n\n`;
}

/** Error body: the scripted raw body when given, else the API's own shape built by `shape`. */
export function errorAnswer(
  reply: Extract<ModelReply, { kind: "error" }>,
  shape: (status: number, message: string) => unknown,
): HttpAnswer {
  const headers = { ...(reply.headers ?? {}) };
  if (typeof reply.body === "string") {
    return { status: reply.status, headers: { "content-type": "text/plain", ...headers }, chunks: [reply.body] };
  }
  return json(reply.status, reply.body ?? shape(reply.status, reply.message), headers);
}

/** Arguments as the JSON text tool calls carry on the wire. */
export function argumentsText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? {});
}

/** The text deltas a streamed reply is sent in: one, or pieces of `deltaSize` characters (never splitting a surrogate pair). */
export function textDeltas(text: string, deltaSize: number | undefined): string[] {
  if (deltaSize === undefined || deltaSize <= 0 || text.length <= deltaSize) return [text];
  const characters = Array.from(text);
  const deltas: string[] = [];
  for (let index = 0; index < characters.length; index += deltaSize) deltas.push(characters.slice(index, index + deltaSize).join(""));
  return deltas;
}
