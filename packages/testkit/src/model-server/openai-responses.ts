import { randomUUID } from "node:crypto";
import { argumentsText, errorAnswer, json, sse, sseEvent, textDeltas, type HttpAnswer, type ModelProtocol } from "./http-answer.js";
import { asArray, asRecord, collectText, type ModelRequest, type OfferedTool } from "./model-request.js";
import type { ModelReply } from "./script-step.js";

const TOOL_OUTPUTS = new Set(["function_call_output", "custom_tool_call_output", "local_shell_call_output"]);

/** OpenAI Responses API: `POST /v1/responses`, SSE events `response.*` or a JSON response object. */
export const openaiResponses: ModelProtocol = {
  api: "openai-responses",
  matches: (path) => /\/responses$/.test(path),
  parse(body, path, query, headers): ModelRequest {
    const input = typeof body["input"] === "string" ? [{ type: "message", role: "user", content: body["input"] }] : asArray(body["input"]);
    const items = input.map(asRecord);
    const last = items.at(-1) ?? {};
    const lastUser = [...items].reverse().find((item) => item["role"] === "user");
    return {
      api: "openai-responses",
      model: String(body["model"] ?? ""),
      stream: body["stream"] === true,
      tools: asArray(body["tools"])
        .map(toTool)
        .filter((tool): tool is OfferedTool => tool !== undefined),
      afterToolResult: TOOL_OUTPUTS.has(String(last["type"])),
      prompt: lastUser ? collectText(lastUser["content"]).join("\n") : "",
      transcript: collectText([body["instructions"], input]).join("\n"),
      path,
      query,
      headers,
      body,
    };
  },
  side(request): HttpAnswer | undefined {
    if (request.tools.length === 0)
      return openaiResponses.render({ kind: "message", text: "ok", usage: { inputTokens: 5, outputTokens: 1 } }, request);
    return undefined;
  },
  render(reply: ModelReply, request: ModelRequest): HttpAnswer {
    if (reply.kind === "error") return errorAnswer(reply, errorShape);
    const id = `resp_${randomUUID().replaceAll("-", "")}`;
    const output: Record<string, unknown>[] = [];
    if (reply.text !== undefined) {
      output.push({
        id: `msg_${randomUUID().replaceAll("-", "")}`,
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: reply.text, annotations: [] }],
      });
    }
    if (reply.toolCall) {
      const { custom } = reply.toolCall;
      output.push({
        id: `${custom ? "ctc" : "fc"}_${randomUUID().replaceAll("-", "")}`,
        type: custom ? "custom_tool_call" : "function_call",
        status: "completed",
        call_id: reply.toolCall.id,
        name: reply.toolCall.name,
        [custom ? "input" : "arguments"]: argumentsText(reply.toolCall.arguments),
      });
    }
    const usage = {
      input_tokens: reply.usage.inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: reply.usage.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: reply.usage.inputTokens + reply.usage.outputTokens,
    };
    const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: request.model };
    const completed = { ...base, status: "completed", output, usage };
    if (!request.stream) return json(200, completed);
    let sequence = 0;
    const event = (type: string, data: Record<string, unknown>) => sseEvent(type, { type, sequence_number: sequence++, ...data });
    const chunks = [
      event("response.created", { response: { ...base, status: "in_progress", output: [] } }),
      event("response.in_progress", { response: { ...base, status: "in_progress", output: [] } }),
    ];
    output.forEach((item, outputIndex) => chunks.push(...itemEvents(item, outputIndex, event, reply.deltaSize)));
    chunks.push(event("response.completed", { response: completed }));
    return sse(chunks);
  },
};

function itemEvents(
  item: Record<string, unknown>,
  outputIndex: number,
  event: (type: string, data: Record<string, unknown>) => string,
  deltaSize: number | undefined,
): string[] {
  const itemId = item["id"];
  const chunks: string[] = [];
  if (item["type"] === "message") {
    const text = String(asRecord(asArray(item["content"])[0])["text"]);
    const emptyPart = { type: "output_text", text: "", annotations: [] };
    const part = { item_id: itemId, output_index: outputIndex, content_index: 0 };
    chunks.push(event("response.output_item.added", { output_index: outputIndex, item: { ...item, status: "in_progress", content: [] } }));
    chunks.push(event("response.content_part.added", { ...part, part: emptyPart }));
    for (const delta of textDeltas(text, deltaSize)) chunks.push(event("response.output_text.delta", { ...part, delta }));
    chunks.push(event("response.output_text.done", { ...part, text }));
    chunks.push(event("response.content_part.done", { ...part, part: { ...emptyPart, text } }));
  } else if (item["type"] === "function_call") {
    const args = String(item["arguments"]);
    chunks.push(
      event("response.output_item.added", { output_index: outputIndex, item: { ...item, status: "in_progress", arguments: "" } }),
    );
    chunks.push(event("response.function_call_arguments.delta", { item_id: itemId, output_index: outputIndex, delta: args }));
    chunks.push(event("response.function_call_arguments.done", { item_id: itemId, output_index: outputIndex, arguments: args }));
  } else {
    const input = String(item["input"]);
    chunks.push(event("response.output_item.added", { output_index: outputIndex, item: { ...item, status: "in_progress", input: "" } }));
    chunks.push(event("response.custom_tool_call_input.delta", { item_id: itemId, output_index: outputIndex, delta: input }));
    chunks.push(event("response.custom_tool_call_input.done", { item_id: itemId, output_index: outputIndex, input }));
  }
  chunks.push(event("response.output_item.done", { output_index: outputIndex, item }));
  return chunks;
}

function toTool(value: unknown): OfferedTool | undefined {
  const tool = asRecord(value);
  if (typeof tool["name"] !== "string") return undefined;
  return { name: tool["name"], kind: tool["type"] === "custom" ? "custom" : "function", schema: tool["parameters"] ?? tool["format"] };
}

function errorShape(status: number, message: string): unknown {
  const type = status === 429 ? "insufficient_quota" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, code: type, param: null } };
}
