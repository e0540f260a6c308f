import { randomUUID } from "node:crypto";
import { errorAnswer, json, sse, sseEvent, textDeltas, type HttpAnswer, type ModelProtocol } from "./http-answer.js";
import { sampleFromSchema } from "./json-schema-sample.js";
import { asArray, asRecord, collectText, type ModelRequest, type OfferedTool } from "./model-request.js";
import type { ModelReply } from "./script-step.js";

const ROUTE = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** Gemini `models/<model>:generateContent`, `:streamGenerateContent` (`?alt=sse` or a JSON array) and `:countTokens`. */
export const geminiGenerate: ModelProtocol = {
  api: "gemini",
  matches: (path) => ROUTE.test(path),
  parse(body, path, query, headers): ModelRequest {
    const [, model = "", method = ""] = ROUTE.exec(path) ?? [];
    const contents = asArray(body["contents"]).map(asRecord);
    const last = contents.at(-1) ?? {};
    const isToolResult = (content: Record<string, unknown>) => asArray(content["parts"]).some((part) => asRecord(part)["functionResponse"]);
    const lastUser = [...contents].reverse().find((content) => content["role"] !== "model" && !isToolResult(content));
    const tools = asArray(body["tools"])
      .flatMap((tool) => asArray(asRecord(tool)["functionDeclarations"]))
      .map(toTool);
    return {
      api: "gemini",
      model: decodeURIComponent(model),
      stream: method === "streamGenerateContent",
      tools: tools.filter((tool): tool is OfferedTool => tool !== undefined),
      afterToolResult: isToolResult(last),
      prompt: lastUser
        ? asArray(lastUser["parts"])
            .map((part) => String(asRecord(part)["text"] ?? ""))
            .join("\n")
        : "",
      transcript: collectText([body["systemInstruction"], contents]).join("\n"),
      path,
      query,
      headers,
      body,
    };
  },
  side(request): HttpAnswer | undefined {
    if (request.path.endsWith(":countTokens")) return json(200, { totalTokens: Math.ceil(request.transcript.length / 4) });
    const config = asRecord(request.body["generationConfig"]);
    const schema = config["responseJsonSchema"] ?? config["responseSchema"];
    if (schema !== undefined || config["responseMimeType"] === "application/json") {
      const text = JSON.stringify(schema === undefined ? {} : sampleFromSchema(schema));
      return geminiGenerate.render({ kind: "message", text, usage: { inputTokens: 5, outputTokens: 3 } }, request);
    }
    if (request.tools.length === 0)
      return geminiGenerate.render({ kind: "message", text: "ok", usage: { inputTokens: 5, outputTokens: 1 } }, request);
    return undefined;
  },
  render(reply: ModelReply, request: ModelRequest): HttpAnswer {
    if (reply.kind === "error") return errorAnswer(reply, errorShape);
    const parts: Record<string, unknown>[] = [];
    if (reply.text !== undefined) parts.push({ text: reply.text });
    if (reply.toolCall)
      parts.push({ functionCall: { id: reply.toolCall.id, name: reply.toolCall.name, args: reply.toolCall.arguments ?? {} } });
    const response = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: {
        promptTokenCount: reply.usage.inputTokens,
        candidatesTokenCount: reply.usage.outputTokens,
        totalTokenCount: reply.usage.inputTokens + reply.usage.outputTokens,
      },
      modelVersion: request.model,
      responseId: randomUUID().replaceAll("-", ""),
    };
    if (!request.stream) return json(200, response);
    // Streamed text goes out in leading text-only chunks; the last chunk carries the rest, the finish reason and usage.
    const deltas = reply.text === undefined ? [] : textDeltas(reply.text, reply.deltaSize);
    const leading = deltas
      .slice(0, -1)
      .map((text) => ({ candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0 }], modelVersion: request.model }));
    const last = {
      ...response,
      candidates: [
        {
          content: { role: "model", parts: parts.map((part) => ("text" in part ? { text: deltas.at(-1) } : part)) },
          finishReason: "STOP",
          index: 0,
        },
      ],
    };
    const all = [...leading, last];
    if (request.query["alt"] === "sse") return sse(all.map((chunk) => sseEvent(undefined, chunk)));
    return json(200, all);
  },
};

function toTool(value: unknown): OfferedTool | undefined {
  const declaration = asRecord(value);
  if (typeof declaration["name"] !== "string") return undefined;
  return { name: declaration["name"], kind: "function", schema: declaration["parametersJsonSchema"] ?? declaration["parameters"] };
}

function errorShape(status: number, message: string): unknown {
  const statusName =
    status === 429
      ? "RESOURCE_EXHAUSTED"
      : status === 503
        ? "UNAVAILABLE"
        : status >= 500
          ? "INTERNAL"
          : status === 401 || status === 403
            ? "PERMISSION_DENIED"
            : "INVALID_ARGUMENT";
  return { error: { code: status, message, status: statusName } };
}
