import { afterEach, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../src/model-server/index.js";
import { dataOf, parseSse, post } from "./model-server-support.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const writeTool = { toolCall: { names: ["Write", "write_file", "write"], arguments: { file_path: "a.txt", content: "hi" } } };

describe("Anthropic Messages", () => {
  const request = (stream: boolean) => ({
    model: "claude-test",
    stream,
    max_tokens: 100,
    tools: [{ name: "Write", input_schema: { type: "object" } }],
    messages: [{ role: "user", content: "make a file" }],
  });

  it("streams a tool call as content blocks with input_json_delta and a tool_use stop reason", async () => {
    server = await startModelServer({ script: [writeTool] });
    const response = await post(`${server.url}/v1/messages?beta=true`, request(true));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = parseSse(await response.text());
    expect(events.map((event) => event.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const data = dataOf(events);
    expect(data[1]).toMatchObject({ content_block: { type: "tool_use", name: "Write" } });
    expect(JSON.parse(String((data[2]?.["delta"] as Record<string, unknown>)["partial_json"]))).toEqual({
      file_path: "a.txt",
      content: "hi",
    });
    expect(data[4]).toMatchObject({ delta: { stop_reason: "tool_use" }, usage: { input_tokens: 12, output_tokens: 7 } });
  });

  it("answers JSON when not streaming, and sees a tool result as the last input", async () => {
    server = await startModelServer({ script: [{ text: "done", usage: { inputTokens: 3, outputTokens: 2 } }] });
    const body = request(false);
    body.messages.push(
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Write", input: {} }] } as never,
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] } as never,
    );
    const reply = (await (await post(`${server.url}/v1/messages`, body)).json()) as Record<string, unknown>;
    expect(reply).toMatchObject({
      type: "message",
      content: [{ type: "text", text: "done" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 3 },
    });
    expect(server.turns()[0]?.model).toMatchObject({ afterToolResult: true, prompt: "make a file", model: "claude-test" });
  });
});

describe("OpenAI Responses", () => {
  const request = (stream: boolean, tools: unknown[]) => ({
    model: "gpt-test",
    stream,
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "make a file" }] }],
    tools,
  });

  it("streams a function call with argument deltas and a completed response carrying usage", async () => {
    server = await startModelServer({ script: [{ toolCall: { name: "exec_command", arguments: { cmd: "true" } } }] });
    const tools = [{ type: "function", name: "exec_command", parameters: {} }];
    const events = parseSse(await (await post(`${server.url}/v1/responses`, request(true, tools))).text());
    const types = events.map((event) => event.event);
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.function_call_arguments.delta");
    expect(types.at(-1)).toBe("response.completed");
    const data = dataOf(events);
    expect(data.every((event, index) => event["sequence_number"] === index)).toBe(true);
    const completed = data.at(-1)?.["response"] as Record<string, unknown>;
    expect(completed).toMatchObject({
      status: "completed",
      output: [{ type: "function_call", name: "exec_command", arguments: '{"cmd":"true"}' }],
    });
    expect(completed["usage"]).toMatchObject({ input_tokens: 12, output_tokens: 7, total_tokens: 19 });
  });

  it("calls a custom (free-form) tool with custom_tool_call and a raw input", async () => {
    server = await startModelServer({ script: [{ toolCall: { name: "apply_patch", arguments: "*** Begin Patch" } }] });
    const tools = [{ type: "custom", name: "apply_patch", format: { type: "grammar" } }];
    const reply = (await (await post(`${server.url}/v1/responses`, request(false, tools))).json()) as Record<string, unknown>;
    expect(reply["output"]).toMatchObject([{ type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch" }]);
  });

  it("streams text through output_text deltas", async () => {
    server = await startModelServer({ script: [{ text: "hello there" }] });
    const tools = [{ type: "function", name: "exec_command" }];
    const data = dataOf(parseSse(await (await post(`${server.url}/v1/responses`, request(true, tools))).text()));
    const deltas = data.filter((event) => event["type"] === "response.output_text.delta").map((event) => event["delta"]);
    expect(deltas.join("")).toBe("hello there");
  });
});

describe("OpenAI Chat Completions", () => {
  const request = (stream: boolean, includeUsage: boolean) => ({
    model: "chat-test",
    stream,
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: "make a file" },
    ],
    tools: [{ type: "function", function: { name: "create", parameters: {} } }],
  });

  it("streams a tool call in chunks, then usage, then [DONE]", async () => {
    server = await startModelServer({ script: [{ toolCall: { names: ["create"], arguments: { path: "/w/a", file_text: "hi" } } }] });
    const events = parseSse(await (await post(`${server.url}/v1/chat/completions`, request(true, true))).text());
    expect(events.at(-1)?.data).toBe("[DONE]");
    const data = dataOf(events);
    const calls = data.flatMap((chunk) =>
      (chunk["choices"] as Record<string, unknown>[]).map((choice) => choice["delta"] as Record<string, unknown>),
    );
    const args = calls
      .flatMap((delta) => (delta["tool_calls"] as Record<string, Record<string, string>>[] | undefined) ?? [])
      .map((call) => call["function"]?.["arguments"] ?? "")
      .join("");
    expect(JSON.parse(args)).toEqual({ path: "/w/a", file_text: "hi" });
    expect(data.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 7 } });
    expect(data.at(-2)).toMatchObject({ choices: [{ finish_reason: "tool_calls" }] });
  });

  it("omits the usage chunk unless asked for, and answers JSON without stream", async () => {
    server = await startModelServer({ script: [{ text: "a" }, { text: "b" }] });
    const streamed = dataOf(parseSse(await (await post(`${server.url}/v1/chat/completions`, request(true, false))).text()));
    expect(streamed.some((chunk) => "usage" in chunk)).toBe(false);
    const reply = (await (await post(`${server.url}/v1/chat/completions`, request(false, false))).json()) as Record<string, unknown>;
    expect(reply).toMatchObject({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: "b" }, finish_reason: "stop" }],
    });
  });
});

describe("Gemini generateContent", () => {
  const request = (parts: unknown[] = [{ text: "make a file" }]) => ({
    contents: [{ role: "user", parts }],
    tools: [{ functionDeclarations: [{ name: "write_file", parametersJsonSchema: {} }] }],
  });

  it("streams a functionCall as one SSE data chunk with usageMetadata (alt=sse)", async () => {
    server = await startModelServer({ script: [writeTool] });
    const response = await post(`${server.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse`, request());
    const [chunk] = dataOf(parseSse(await response.text()));
    expect(chunk).toMatchObject({
      candidates: [
        {
          content: { role: "model", parts: [{ functionCall: { name: "write_file", args: { file_path: "a.txt" } } }] },
          finishReason: "STOP",
        },
      ],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 7, totalTokenCount: 19 },
    });
    expect(server.turns("gemini")[0]?.model?.model).toBe("gemini-x");
  });

  it("answers a JSON array for streamGenerateContent without alt=sse, an object for generateContent", async () => {
    server = await startModelServer({ script: [{ text: "a" }, { text: "b" }] });
    const array = await (await post(`${server.url}/v1beta/models/m:streamGenerateContent`, request())).json();
    expect(array).toMatchObject([{ candidates: [{ content: { parts: [{ text: "a" }] } }] }]);
    const single = await (await post(`${server.url}/v1beta/models/m:generateContent`, request())).json();
    expect(single).toMatchObject({ candidates: [{ content: { parts: [{ text: "b" }] } }] });
  });

  it("recognizes a functionResponse as a tool result", async () => {
    server = await startModelServer({ script: [{ text: "done" }] });
    await post(`${server.url}/v1beta/models/m:generateContent`, {
      ...request(),
      contents: [
        { role: "user", parts: [{ text: "make a file" }] },
        { role: "model", parts: [{ functionCall: { name: "write_file", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { name: "write_file", response: { output: "ok" } } }] },
      ],
    });
    expect(server.turns()[0]?.model).toMatchObject({ afterToolResult: true, prompt: "make a file" });
  });
});

describe("text deltas (textDeltaSize)", () => {
  it("cuts streamed text into deltas in every API, and the pieces join back to the text", async () => {
    server = await startModelServer({ textDeltaSize: 4, responder: () => ({ text: "héllo wörld 🙂!" }) });
    const url = server.url;
    const tools = {
      anthropic: [{ name: "t", input_schema: {} }],
      responses: [{ type: "function", name: "t" }],
      chat: [{ type: "function", function: { name: "t" } }],
    };
    const anthropic = dataOf(
      parseSse(
        await (
          await post(`${url}/v1/messages`, { model: "m", stream: true, tools: tools.anthropic, messages: [{ role: "user", content: "x" }] })
        ).text(),
      ),
    );
    const anthropicDeltas = anthropic
      .filter((event) => event["type"] === "content_block_delta")
      .map((event) => (event["delta"] as { text: string }).text);
    const responses = dataOf(
      parseSse(await (await post(`${url}/v1/responses`, { model: "m", stream: true, tools: tools.responses, input: "x" })).text()),
    );
    const responsesDeltas = responses
      .filter((event) => event["type"] === "response.output_text.delta")
      .map((event) => String(event["delta"]));
    const chat = dataOf(
      parseSse(
        await (
          await post(`${url}/v1/chat/completions`, {
            model: "m",
            stream: true,
            tools: tools.chat,
            messages: [{ role: "user", content: "x" }],
          })
        ).text(),
      ),
    );
    const chatDeltas = chat
      .flatMap((chunk) => (chunk["choices"] as { delta: { content?: string } }[]).map((choice) => choice.delta.content ?? ""))
      .filter((text) => text !== "");
    const gemini = dataOf(
      parseSse(
        await (
          await post(`${url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
            contents: [{ role: "user", parts: [{ text: "x" }] }],
            tools: [{ functionDeclarations: [{ name: "t" }] }],
          })
        ).text(),
      ),
    );
    const geminiDeltas = gemini.map(
      (chunk) => (chunk["candidates"] as { content: { parts: { text: string }[] } }[])[0]?.content.parts[0]?.text ?? "",
    );
    for (const deltas of [anthropicDeltas, responsesDeltas, chatDeltas, geminiDeltas]) {
      expect(deltas.length).toBe(4);
      expect(deltas.join("")).toBe("héllo wörld 🙂!");
    }
    expect(gemini.at(-1)).toMatchObject({ candidates: [{ finishReason: "STOP" }], usageMetadata: { totalTokenCount: 19 } });
    expect(gemini[0]).not.toHaveProperty("usageMetadata");
  });
});
