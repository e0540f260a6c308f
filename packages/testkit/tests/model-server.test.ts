import { afterEach, describe, expect, it } from "vitest";
import { conversationResponder, startModelServer, workingDirectory, writeFileStep, type ModelServer } from "../src/model-server/index.js";
import { dataOf, parseSse, post } from "./model-server-support.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const anthropic = (prompt: string, tools: string[] = ["Write"], extra: unknown[] = []) => ({
  model: "m",
  max_tokens: 10,
  tools: tools.map((name) => ({ name, input_schema: {} })),
  messages: [...extra, { role: "user", content: prompt }],
});

async function anthropicText(url: string, body: unknown): Promise<string> {
  const reply = (await (await post(`${url}/v1/messages`, body)).json()) as { content: { type: string; text?: string }[] };
  return reply.content.map((block) => block.text ?? `[${block.type}]`).join("");
}

describe("startModelServer", () => {
  it("binds 127.0.0.1 on a free port and logs method, path, headers and body", async () => {
    server = await startModelServer({ script: [{ text: "hello" }] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
    await post(`${server.url}/v1/messages?beta=true`, anthropic("hi"), { "x-api-key": "k" });
    const [logged] = server.requests;
    expect(logged).toMatchObject({
      method: "POST",
      path: "/v1/messages",
      query: { beta: "true" },
      kind: "turn",
      step: 0,
      status: 200,
      api: "anthropic-messages",
    });
    expect(logged?.headers["x-api-key"]).toBe("k");
    expect(JSON.parse(logged?.body ?? "")).toMatchObject({ messages: [{ content: "hi" }] });
  });

  it("plays the script in order, then falls back to the responder", async () => {
    server = await startModelServer({ script: [{ text: "one" }, { text: "two" }], responder: () => ({ text: "responder" }) });
    const texts = [];
    for (let index = 0; index < 3; index++) texts.push(await anthropicText(server.url, anthropic("x")));
    expect(texts).toEqual(["one", "two", "responder"]);
    expect(server.turns().map((entry) => entry.step)).toEqual([0, 1, undefined]);
    expect(server.remaining).toBe(0);
    server.push({ text: "pushed" });
    expect(await anthropicText(server.url, anthropic("x"))).toBe("pushed");
  });

  it("answers side requests without consuming steps: titles, JSON-schema helpers, token counts, probes", async () => {
    server = await startModelServer({ script: [{ text: "the turn" }] });
    expect(await anthropicText(server.url, anthropic("title please", []))).toBe("ok");
    const countTokens = await (await post(`${server.url}/v1/messages/count_tokens`, anthropic("abcd"))).json();
    expect(countTokens).toMatchObject({ input_tokens: expect.any(Number) });
    const router = (await (
      await post(`${server.url}/v1beta/models/flash-lite:generateContent`, {
        contents: [{ role: "user", parts: [{ text: "route" }] }],
        generationConfig: {
          responseMimeType: "application/json",
          responseJsonSchema: {
            type: "object",
            properties: { complexity_reasoning: { type: "string" }, complexity_score: { type: "integer" } },
          },
        },
      })
    ).json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(JSON.parse(router.candidates[0]?.content.parts[0]?.text ?? "")).toEqual({
      complexity_reasoning: expect.any(String),
      complexity_score: 1,
    });
    const nextSpeaker = (await (
      await post(`${server.url}/v1beta/models/m:generateContent`, {
        contents: [{ role: "user", parts: [{ text: "who" }] }],
        generationConfig: {
          responseJsonSchema: {
            type: "OBJECT",
            properties: { reasoning: { type: "STRING" }, next_speaker: { type: "STRING", enum: ["model", "user"] } },
          },
        },
      })
    ).json()) as { candidates: { content: { parts: { text: string }[] } }[] };
    expect(JSON.parse(nextSpeaker.candidates[0]?.content.parts[0]?.text ?? "")).toMatchObject({ next_speaker: "user" });
    expect((await fetch(`${server.url}/`, { method: "HEAD" })).status).toBe(200);
    expect(await (await fetch(`${server.url}/v1/models`)).json()).toMatchObject({ object: "list" });
    expect(server.remaining).toBe(1);
    expect(await anthropicText(server.url, anthropic("the real one"))).toBe("the turn");
    expect(server.requests.map((entry) => entry.kind)).toEqual(["side", "side", "side", "side", "other", "other", "turn"]);
  });

  it("answers scripted errors in each API's error shape, or with a raw body", async () => {
    server = await startModelServer({
      script: [
        { error: { status: 429 } },
        { error: { status: 529 } },
        { error: { status: 503, message: "down" } },
        { error: { status: 500, body: "plain failure", headers: { "retry-after": "0" } } },
      ],
    });
    const quota = await post(`${server.url}/v1/messages`, anthropic("x"));
    expect(quota.status).toBe(429);
    expect(await quota.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    const overloaded = await post(`${server.url}/v1/messages`, anthropic("x"));
    expect(await overloaded.json()).toMatchObject({ error: { type: "overloaded_error" } });
    const gemini = await post(`${server.url}/v1beta/models/m:generateContent`, {
      contents: [],
      tools: [{ functionDeclarations: [{ name: "t" }] }],
    });
    expect(gemini.status).toBe(503);
    expect(await gemini.json()).toEqual({ error: { code: 503, message: "down", status: "UNAVAILABLE" } });
    const raw = await post(`${server.url}/v1/chat/completions`, { messages: [], tools: [{ type: "function", function: { name: "t" } }] });
    expect(raw.status).toBe(500);
    expect(raw.headers.get("retry-after")).toBe("0");
    expect(await raw.text()).toBe("plain failure");
  });

  it("waits a step's delay before answering", async () => {
    server = await startModelServer({ script: [{ text: "late", delayMs: 300 }] });
    const started = Date.now();
    expect(await anthropicText(server.url, anthropic("x"))).toBe("late");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("picks the first offered name of a tool-call step and passes name and request to argument functions", async () => {
    server = await startModelServer({
      script: [{ toolCall: { names: ["Write", "create"], arguments: (name, request) => ({ name, prompt: request.prompt }) } }],
    });
    const reply = (await (await post(`${server.url}/v1/messages`, anthropic("p", ["create", "Read"]))).json()) as { content: unknown[] };
    expect(reply.content).toEqual([
      { type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "create", input: { name: "create", prompt: "p" } },
    ]);
  });

  it("answers 400 and records a problem when the request offers none of the scripted tool names", async () => {
    server = await startModelServer({ script: [{ toolCall: { name: "Write", arguments: {} } }] });
    const response = await post(`${server.url}/v1/messages`, anthropic("x", ["Read"]));
    expect(response.status).toBe(400);
    expect(server.problems).toEqual([expect.stringContaining("wants tool Write, the request offers Read")]);
  });

  it("step functions decide from the request", async () => {
    server = await startModelServer({ script: [(request) => ({ text: `you said ${request.prompt}` })] });
    expect(await anthropicText(server.url, anthropic("bonjour"))).toBe("you said bonjour");
  });

  it("close() ends open keep-alive connections and can be called twice", async () => {
    server = await startModelServer();
    await fetch(`${server.url}/`, { method: "HEAD", keepalive: true });
    await server.close();
    await server.close();
    await expect(fetch(`${server.url}/`)).rejects.toThrow();
  });
});

describe("conversationResponder", () => {
  it("writes the file, then reports turn 1, then tells whether turn 2's history holds turn 1's marker", async () => {
    server = await startModelServer({ responder: conversationResponder() });
    const first = (await (
      await post(`${server.url}/v1/messages`, { ...anthropic("Create hello.txt"), system: "Primary working directory: /work/repo" })
    ).json()) as { content: unknown[] };
    expect(first.content).toEqual([
      expect.objectContaining({ type: "tool_use", name: "Write", input: { file_path: "/work/repo/hello.txt", content: "hi" } }),
    ]);
    const history = [
      { role: "user", content: "Create hello.txt" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Write", input: {} }] },
    ];
    const afterTool = anthropic("", ["Write"], history);
    afterTool.messages[2] = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] };
    expect(await anthropicText(server.url, afterTool)).toBe("MARKER_TURN1_DONE");
    const withHistory = anthropic("TURN2: what now?", ["Write"], [...history, { role: "assistant", content: "MARKER_TURN1_DONE" }]);
    expect(await anthropicText(server.url, withHistory)).toBe("MARKER_TURN2_DONE history_has_turn1=true");
    expect(await anthropicText(server.url, anthropic("TURN2: fresh"))).toBe("MARKER_TURN2_DONE history_has_turn1=false");
  });

  it("uses each CLI's writer tool shape: codex exec_command gets a shell command", async () => {
    server = await startModelServer({ script: [writeFileStep("out.txt", "it's")] });
    const body = { model: "m", input: "go", tools: [{ type: "function", name: "exec_command" }], stream: true };
    const data = dataOf(parseSse(await (await post(`${server.url}/v1/responses`, body)).text()));
    const done = data.find((event) => event["type"] === "response.function_call_arguments.done");
    expect(JSON.parse(String(done?.["arguments"]))).toEqual({ cmd: `printf '%s' 'it'\\''s' > 'out.txt'` });
  });

  it("finds the workspace each CLI announces, for tools that want absolute paths", () => {
    const request = (transcript: string) => ({ transcript }) as never;
    expect(workingDirectory(request("<env>Primary working directory: /w/claude\nIs a git repo"))).toBe("/w/claude");
    expect(workingDirectory(request("<environment_context>\n  <cwd>/w/codex</cwd>"))).toBe("/w/codex");
    expect(workingDirectory(request("- **Workspace Directories:**\n  - /w/gemini\n- **Directory Structure:**"))).toBe("/w/gemini");
    expect(workingDirectory(request("no directory here"))).toBeUndefined();
  });
});
