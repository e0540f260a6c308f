import { randomUUID } from "node:crypto";
import { argumentsText, errorAnswer, json, sse, sseEvent, textDeltas, type HttpAnswer, type ModelProtocol } from "./http-answer.js";
import { asArray, asRecord, collectText, type ModelRequest, type OfferedTool } from "./model-request.js";
import type { ModelReply } from "./script-step.js";

/** OpenAI Chat Completions: `POST /v1/chat/completions`, `chat.completion.chunk` SSE ending in `[DONE]`, or JSON. */
export const openaiChat: ModelProtocol = {
  api: "openai-chat",
  matches: (path) => /\/chat\/completions$/.test(path),
  parse(body, path, query, headers): ModelRequest {
    const messages = asArray(body["messages"]).map(asRecord);
    const last = messages.at(-1) ?? {};
    const lastUser = [...messages].reverse().find((message) => message["role"] === "user");
    return {
      api: "openai-chat",
      model: String(body["model"] ?? ""),
      stream: body["stream"] === true,
      tools: asArray(body["tools"])
        .map(toTool)
        .filter((tool): tool is OfferedTool => tool !== undefined),
      afterToolResult: last["role"] === "tool",
      prompt: lastUser ? collectText(lastUser["content"]).join("\n") : "",
      transcript: collectText(messages).join("\n"),
      path,
      query,
      headers,
      body,
    };
  },
  side(request): HttpAnswer | undefined {
    if (request.tools.length === 0)
      return openaiChat.render({ kind: "message", text: "ok", usage: { inputTokens: 5, outputTokens: 1 } }, request);
    return undefined;
  },
  render(reply: ModelReply, request: ModelRequest): HttpAnswer {
    if (reply.kind === "error") return errorAnswer(reply, errorShape);
    const id = `chatcmpl-${randomUUID().replaceAll("-", "")}`;
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = reply.toolCall
      ? [
          {
            id: reply.toolCall.id,
            type: "function",
            function: { name: reply.toolCall.name, arguments: argumentsText(reply.toolCall.arguments) },
          },
        ]
      : undefined;
    const finishReason = toolCalls ? "tool_calls" : "stop";
    const usage = {
      prompt_tokens: reply.usage.inputTokens,
      completion_tokens: reply.usage.outputTokens,
      total_tokens: reply.usage.inputTokens + reply.usage.outputTokens,
    };
    if (!request.stream) {
      const message = { role: "assistant", content: reply.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
      return json(200, {
        id,
        object: "chat.completion",
        created,
        model: request.model,
        choices: [{ index: 0, message, finish_reason: finishReason }],
        usage,
      });
    }
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      sseEvent(undefined, { id, object: "chat.completion.chunk", created, model: request.model, choices, ...extra });
    const chunks = [chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }])];
    if (reply.text !== undefined) {
      for (const delta of textDeltas(reply.text, reply.deltaSize))
        chunks.push(chunk([{ index: 0, delta: { content: delta }, finish_reason: null }]));
    }
    if (toolCalls && reply.toolCall) {
      const head = { index: 0, id: reply.toolCall.id, type: "function", function: { name: reply.toolCall.name, arguments: "" } };
      chunks.push(chunk([{ index: 0, delta: { tool_calls: [head] }, finish_reason: null }]));
      const args = toolCalls[0]?.function.arguments ?? "{}";
      chunks.push(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args } }] }, finish_reason: null }]));
    }
    chunks.push(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]));
    // Usage arrives in a last choice-less chunk only when asked for, as the real API does.
    if (asRecord(request.body["stream_options"])["include_usage"] === true) chunks.push(chunk([], { usage }));
    chunks.push(sseEvent(undefined, "[DONE]"));
    return sse(chunks);
  },
};

function toTool(value: unknown): OfferedTool | undefined {
  const tool = asRecord(value);
  const fn = asRecord(tool["function"]);
  return typeof fn["name"] === "string" ? { name: fn["name"], kind: "function", schema: fn["parameters"] } : undefined;
}

function errorShape(status: number, message: string): unknown {
  const type = status === 429 ? "insufficient_quota" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, code: type, param: null } };
}
