import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { isOutpostError } from "@outpost/core";
import { afterEach, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "../src/model-server/index.js";
import { post } from "./model-server-support.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const chat = (prompt: string) => ({
  model: "m",
  messages: [{ role: "user", content: prompt }],
  tools: [{ type: "function", function: { name: "t" } }],
});

describe("model server under hostile input", () => {
  it("answers 400 to a body that is not JSON and logs it as `other` without consuming a step", async () => {
    server = await startModelServer({ script: [{ text: "kept" }] });
    const response = await fetch(`${server.url}/v1/messages`, { method: "POST", body: '{"truncated": ' });
    expect(response.status).toBe(400);
    expect(server.requests[0]).toMatchObject({ kind: "other", status: 400, body: '{"truncated": ' });
    expect(server.remaining).toBe(1);
  });

  it("answers 413 to an oversized body", async () => {
    server = await startModelServer({ maxBodyBytes: 1024 });
    const response = await post(`${server.url}/v1/chat/completions`, chat("x".repeat(10_000)));
    expect(response.status).toBe(413);
  });

  it("decodes gzip bodies and refuses corrupt ones", async () => {
    server = await startModelServer({ script: [{ text: "unzipped" }] });
    const body = gzipSync(JSON.stringify(chat("zipped")));
    const ok = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-encoding": "gzip" }, body });
    expect(await ok.json()).toMatchObject({ choices: [{ message: { content: "unzipped" } }] });
    const bad = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-encoding": "gzip" },
      body: "not gzip",
    });
    expect(bad.status).toBe(400);
  });

  it("tolerates JSON of the wrong shape (arrays, nulls, missing fields) as a request without tools", async () => {
    server = await startModelServer();
    for (const body of ["[]", "null", '{"messages": 5, "tools": "x"}', '{"contents": [null, 3]}']) {
      const response = await fetch(`${server.url}/v1/messages`, { method: "POST", body });
      expect(response.status).toBe(200);
    }
    const gemini = await fetch(`${server.url}/v1beta/models/m:generateContent`, {
      method: "POST",
      body: '{"contents": [null, 3], "tools": [{}]}',
    });
    expect(gemini.status).toBe(200);
    expect(server.problems).toEqual([]);
  });

  it("answers 404 to unknown routes", async () => {
    server = await startModelServer();
    const response = await post(`${server.url}/v2/unknown`, {});
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining("no route for POST /v2/unknown") } });
  });

  it("gives concurrent requests distinct steps in arrival order", async () => {
    const script = Array.from({ length: 20 }, (_, index) => ({ text: `step ${index}` }));
    server = await startModelServer({ script });
    const url = server.url;
    const replies = await Promise.all(
      script.map(
        async () =>
          ((await (await post(`${url}/v1/chat/completions`, chat("x"))).json()) as { choices: { message: { content: string } }[] })
            .choices[0]?.message.content,
      ),
    );
    expect(new Set(replies).size).toBe(20);
    expect(
      server
        .turns()
        .map((entry) => entry.step)
        .sort((a, b) => (a ?? 0) - (b ?? 0)),
    ).toEqual(script.map((_, index) => index));
  });

  it("survives a client that disconnects during a delayed reply", async () => {
    server = await startModelServer({ script: [{ text: "late", delayMs: 2_000 }, { text: "next" }] });
    const { port } = server;
    await new Promise<void>((resolve) => {
      const request = httpRequest({ host: "127.0.0.1", port, method: "POST", path: "/v1/chat/completions" });
      request.on("error", () => resolve());
      request.end(JSON.stringify(chat("x")), () => setTimeout(() => request.destroy(), 50));
      request.on("close", () => resolve());
    });
    const next = (await (await post(`${server.url}/v1/chat/completions`, chat("x"))).json()) as {
      choices: { message: { content: string } }[];
    };
    expect(next.choices[0]?.message.content).toBe("next");
  });

  it("records a problem and answers 500 when a step function throws", async () => {
    server = await startModelServer({
      script: [
        () => {
          throw new Error("responder bug");
        },
      ],
    });
    const response = await post(`${server.url}/v1/chat/completions`, chat("x"));
    expect(response.status).toBe(500);
    expect(server.problems).toEqual(["responder bug"]);
  });

  it("refuses a port already in use with an OutpostError of code configuration", async () => {
    server = await startModelServer();
    const error = await startModelServer({ port: server.port }).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "configuration")).toBe(true);
    expect((error as Error).message).toContain("Pass port 0");
  });
});
