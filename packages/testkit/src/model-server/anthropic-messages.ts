import { randomUUID } from "node:crypto";
import { argumentsText, errorAnswer, json, sse, sseEvent, textDeltas, type HttpAnswer, type ModelProtocol } from "./http-answer.js";
import { asArray, asRecord, collectText, type ModelRequest, type OfferedTool } from "./model-request.js";
import type { ModelReply } from "./script-step.js";

/** Anthropic Messages API: `POST /v1/messages` (SSE with `stream: true`, JSON otherwise) and `count_tokens`. */
export const anthropicMessages: ModelProtocol = {
  api: "anthropic-messages",
  matches: (path) => /\/v1\/messages(\/count_tokens)?$/.test(path),
  parse(body, path, query, headers): ModelRequest {
    const messages = asArray(body["messages"]);
    const last = asRecord(messages.at(-1));
    const content = typeof last["content"] === "string" ? [{ type: "text", text: last["content"] }] : asArray(last["content"]);
    const afterToolResult = last["role"] === "user" && content.some((block) => asRecord(block)["type"] === "tool_result");
    const lastUser = [...messages]
      .reverse()
      .map(asRecord)
      .find((message) => message["role"] === "user" && !isToolResultOnly(message));
    return {
      api: "anthropic-messages",
      model: String(body["model"] ?? ""),
      stream: body["stream"] === true,
      tools: asArray(body["tools"])
        .map(toTool)
        .filter((tool): tool is OfferedTool => tool !== undefined),
      afterToolResult,
      prompt: lastUser ? textOf(lastUser["content"]) : "",
      transcript: collectText([body["system"], messages]).join("\n"),
      path,
      query,
      headers,
      body,
    };
  },
  side(request): HttpAnswer | undefined {
    if (request.path.endsWith("/count_tokens")) return json(200, { input_tokens: Math.ceil(request.transcript.length / 4) });
    if (request.tools.length === 0)
      return anthropicMessages.render({ kind: "message", text: "ok", usage: { inputTokens: 5, outputTokens: 1 } }, request);
    return undefined;
  },
  render(reply: ModelReply, request: ModelRequest): HttpAnswer {
    if (reply.kind === "error") return errorAnswer(reply, errorShape);
    const blocks: Record<string, unknown>[] = [];
    if (reply.text !== undefined) blocks.push({ type: "text", text: reply.text });
    if (reply.toolCall)
      blocks.push({ type: "tool_use", id: toolId(reply.toolCall.id), name: reply.toolCall.name, input: reply.toolCall.arguments ?? {} });
    const stopReason = reply.toolCall ? "tool_use" : "end_turn";
    const usage = {
      input_tokens: reply.usage.inputTokens,
      output_tokens: reply.usage.outputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const message = { id: `msg_${randomUUID().replaceAll("-", "")}`, type: "message", role: "assistant", model: request.model };
    if (!request.stream) return json(200, { ...message, content: blocks, stop_reason: stopReason, stop_sequence: null, usage });
    const chunks = [
      sseEvent("message_start", {
        type: "message_start",
        message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
      }),
    ];
    blocks.forEach((block, index) => {
      if (block["type"] === "text") {
        chunks.push(sseEvent("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
        for (const delta of textDeltas(String(block["text"]), reply.deltaSize)) {
          chunks.push(sseEvent("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: delta } }));
        }
      } else {
        const start = { type: "tool_use", id: block["id"], name: block["name"], input: {} };
        chunks.push(sseEvent("content_block_start", { type: "content_block_start", index, content_block: start }));
        const partial = argumentsText(block["input"]);
        chunks.push(
          sseEvent("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: partial },
          }),
        );
      }
      chunks.push(sseEvent("content_block_stop", { type: "content_block_stop", index }));
    });
    chunks.push(sseEvent("message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage }));
    chunks.push(sseEvent("message_stop", { type: "message_stop" }));
    return sse(chunks, { "request-id": `req_${randomUUID().replaceAll("-", "")}` });
  },
};

function toTool(value: unknown): OfferedTool | undefined {
  const tool = asRecord(value);
  return typeof tool["name"] === "string" ? { name: tool["name"], kind: "function", schema: tool["input_schema"] } : undefined;
}

function isToolResultOnly(message: Record<string, unknown>): boolean {
  const content = asArray(message["content"]);
  return content.length > 0 && content.every((block) => asRecord(block)["type"] === "tool_result");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map(asRecord)
    .filter((block) => block["type"] === "text")
    .map((block) => String(block["text"]))
    .join("\n");
}

function toolId(id: string): string {
  return id.startsWith("toolu_") ? id : `toolu_${id.replace(/^call_/, "")}`;
}

function errorShape(status: number, message: string): unknown {
  const type =
    status === 429
      ? "rate_limit_error"
      : status === 529
        ? "overloaded_error"
        : status === 401
          ? "authentication_error"
          : status >= 500
            ? "api_error"
            : "invalid_request_error";
  return { type: "error", error: { type, message } };
}
