import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { z } from "zod";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { claudeAgent } from "@outpost/agent-claude";
import { codexAgent } from "@outpost/agent-codex";
import { geminiAgent } from "@outpost/agent-gemini";
import { isOutpostError, type OutpostError } from "@outpost/core";
import { createFallbackAgent, createObservationHub, dispatch, type DispatchEvent } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { type ModelServer, type Responder, type ScriptStep } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";
import { missingCli, pathWithClis } from "./support/cli-bin.js";
import { withModelServer } from "./support/with-model-server.js";

// Typed responses, fallback chains, the observation hub and telemetry through dispatch(), with the real
// Claude Code and Codex CLIs against the scripted model server.
const claude = (server: ModelServer) => claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-outpost-test", maxRetries: 0 });
const codex = (server: ModelServer) =>
  codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "outpost-test-key", model: "gpt-5.5", maxRetries: 0 });
const provider = () => localProvider({ home: "private", variables: { PATH: pathWithClis() } });
const gemini = (server: ModelServer) =>
  geminiAgent({ baseUrl: server.url, apiKey: "outpost-test-key", model: "gemini-2.5-flash", maxAttempts: 1 });
const unavailable = missingCli("claude") ?? missingCli("codex");
const geminiUnavailable = unavailable ?? missingCli("gemini");

async function failure(promise: Promise<unknown>): Promise<OutpostError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isOutpostError(error)) throw new Error(`expected an OutpostError, got ${String(error)}`);
  return error;
}

const answers = (...texts: string[]): Responder => {
  let next = 0;
  return () => ({ text: texts[Math.min(next++, texts.length - 1)]! });
};

const task = z.object({ title: z.string(), count: z.number().int() });

(unavailable ? describe.skip : describe)(
  `typed responses with the real Claude Code CLI${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
  () => {
    it("valid at once (zod): result.value is the parsed value, the brief carried the JSON Schema", async () => {
      await withModelServer(answers('Done.\n<response>{"title":"hello","count":2}</response>'), async (server) => {
        const result = await dispatch({
          agent: claude(server),
          brief: "Describe the task.",
          repository: scratchRepository(),
          sandboxProvider: provider(),
          response: { schema: task },
        });
        const value: { title: string; count: number } = result.value;
        expect(value).toEqual({ title: "hello", count: 2 });
        expect(result.completed).toBe(true);
        expect(result.responseAttempts).toEqual([]);
        expect(result.turns).toHaveLength(1);
        expect(server.turns()[0]!.model!.prompt).toContain('"required"');
      });
    }, 120_000);

    it("valid after one repair (valibot): the correction turn resumes the conversation with the issues", async () => {
      await withModelServer(
        answers('<response>{"title":"hello","count":"two"}</response>', '<response>```json\n{"title":"hello","count":2}\n```</response>'),
        async (server) => {
          const result = await dispatch({
            agent: claude(server),
            brief: "Describe the task.",
            repository: scratchRepository(),
            sandboxProvider: provider(),
            response: { schema: v.object({ title: v.string(), count: v.number() }), repairs: 2 },
          });
          expect(result.value).toEqual({ title: "hello", count: 2 });
          expect(result.turns.map((turn) => turn.repair)).toEqual([undefined, 1]);
          expect(result.turns[1]!.conversationId).toBe(result.turns[0]!.conversationId);
          expect(result.responseAttempts).toEqual([{ attempt: 0, issues: [expect.objectContaining({ path: "count" })] }]);
          const repair = server.turns()[1]!.model!;
          expect(repair.prompt).toContain("count:");
          // The resumed turn carries the first answer in its history.
          expect(repair.transcript).toContain('"count":"two"');
        },
      );
    }, 120_000);

    it("never valid: code response with every attempt's issues", async () => {
      await withModelServer(answers("I will not use tags."), async (server) => {
        const error = await failure(
          dispatch({
            agent: claude(server),
            brief: "Describe the task.",
            repository: scratchRepository(),
            sandboxProvider: provider(),
            response: { schema: task, repairs: 1 },
          }),
        );
        expect(error.code).toBe("response");
        const attempts = error.details["attempts"] as { attempt: number; issues: { message: string }[] }[];
        expect(attempts.map((attempt) => attempt.attempt)).toEqual([0, 1]);
        expect(attempts[1]!.issues[0]!.message).toMatch(/No complete <response>/);
        expect(error.details["recovery"]).toBeDefined();
      });
    }, 120_000);
  },
);

/** Claude's calls are refused with `status`; Codex answers. */
const claudeRefused =
  (status: number): Responder =>
  (request): ScriptStep => {
    const headers: Record<string, string> = status === 429 ? { "retry-after": "0" } : {};
    return request.api === "anthropic-messages"
      ? { error: { status, headers } }
      : { text: "Codex did it. <outpost>done</outpost>", usage: { inputTokens: 30, outputTokens: 5 } };
  };

(unavailable ? describe.skip : describe)(`fallback agents with the real CLIs${unavailable ? ` (unavailable: ${unavailable})` : ""}`, () => {
  it("Claude → Codex on 429: Codex answers, the fallback is reported to the hub and in one trace, usage combined", async () => {
    await withModelServer(claudeRefused(429), async (server) => {
      const hub = createObservationHub();
      const events: DispatchEvent[] = [];
      hub.subscribe(async (event) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push(event);
      });
      const exporter = new InMemorySpanExporter();
      const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("e2e");
      const result = await dispatch({
        agent: createFallbackAgent([claude(server), codex(server)], { on: ["quota", "unavailable"] }),
        brief: "Say hello.",
        repository: scratchRepository(),
        sandboxProvider: provider(),
        observation: hub,
        telemetry: { tracer },
      });
      expect(result.text).toContain("Codex did it.");
      expect(result.fallback).toEqual({
        agent: "codex",
        skipped: [expect.objectContaining({ agent: "claude", classification: "quota", rule: "claude-rate-limit-429" })],
      });
      expect(result.turns.map((turn) => turn.agent)).toEqual(["codex"]);
      expect(result.usage.inputTokens).toBeGreaterThanOrEqual(30);
      // Drained before dispatch() returned: every event of the async listener is there.
      expect(events.map((event) => event.type)).toEqual(
        expect.arrayContaining(["dispatch-start", "fallback", "agent-event", "dispatch-end"]),
      );
      expect(events.at(-1)).toMatchObject({ type: "dispatch-end", ok: true, dispatchId: result.dispatchId });
      expect(events.find((event) => event.type === "fallback")).toMatchObject({ from: "claude", to: "codex", classification: "quota" });
      const spans = exporter.getFinishedSpans();
      expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
      expect(spans.map((span) => span.name)).toEqual(
        expect.arrayContaining([
          "outpost.dispatch",
          "outpost.workspace",
          "outpost.sandbox",
          "outpost.turns",
          "outpost.turn",
          "outpost.sync",
          "outpost.capture",
          "outpost.integrate",
        ]),
      );
      expect(spans.filter((span) => span.name === "outpost.turn").map((span) => span.attributes["outpost.agent"])).toEqual([
        "claude",
        "codex",
      ]);
    });
  }, 180_000);

  it("a class that is not listed does not fall back: Claude's 503 fails as before, Codex never runs", async () => {
    await withModelServer(claudeRefused(503), async (server) => {
      const error = await failure(
        dispatch({
          agent: createFallbackAgent([claude(server), codex(server)], { on: ["quota"] }),
          brief: "Say hello.",
          repository: scratchRepository(),
          sandboxProvider: provider(),
        }),
      );
      expect(error.code).toBe("process");
      expect(error.details["classification"]).toBe("unavailable");
      expect(server.turns("openai-responses")).toEqual([]);
    });
  }, 120_000);

  it("refuses continuation with code configuration before anything is allocated", async () => {
    await withModelServer(answers("unused"), async (server) => {
      const error = await failure(
        dispatch({
          agent: createFallbackAgent([claude(server), codex(server)], { on: ["quota"] }),
          brief: "Say hello.",
          repository: scratchRepository(),
          sandboxProvider: provider(),
          continuation: { id: "00000000-0000-0000-0000-000000000000" },
        }),
      );
      expect(error.code).toBe("configuration");
      expect(server.requests).toEqual([]);
    });
  });
});

(geminiUnavailable ? describe.skip : describe)(
  `fallback from Codex to Gemini with the real CLIs${geminiUnavailable ? ` (unavailable: ${geminiUnavailable})` : ""}`,
  () => {
    it("Codex → Gemini on 503: Gemini answers, Codex's failure is classified unavailable, both are observed", async () => {
      const responder: Responder = (request): ScriptStep =>
        request.api === "openai-responses" ? { error: { status: 503 } } : { text: "Gemini did it. <outpost>done</outpost>" };
      await withModelServer(responder, async (server) => {
        const observed: string[] = [];
        const result = await dispatch({
          agent: createFallbackAgent([codex(server), gemini(server)], { on: ["unavailable"] }),
          brief: "Say hello.",
          repository: scratchRepository(),
          sandboxProvider: provider(),
          observe: (observation) => observed.push(observation.event.type),
        });
        expect(result.text).toContain("Gemini did it.");
        expect(result.fallback).toEqual({
          agent: "gemini",
          skipped: [expect.objectContaining({ agent: "codex", classification: "unavailable", rule: "codex-service-unavailable" })],
        });
        expect(result.turns.map((turn) => turn.agent)).toEqual(["gemini"]);
        expect(server.turns("openai-responses").length).toBeGreaterThan(0);
        // The observe callback sees the fallback between Codex's events and Gemini's.
        expect(observed).toContain("fallback");
      });
    }, 240_000);

    it("aborting while the fallback candidate runs stops it and rejects with the signal's reason; no later candidate runs", async () => {
      const controller = new AbortController();
      let geminiCalls = 0;
      const responder: Responder = async (request): Promise<ScriptStep> => {
        if (request.api === "anthropic-messages") return { error: { status: 429, headers: { "retry-after": "0" } } };
        if (request.api === "openai-responses") {
          // Codex, the fallback, is running: the caller gives up now.
          controller.abort(new Error("the operator gave up"));
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          return { text: "too late" };
        }
        geminiCalls += 1;
        return { text: "unexpected" };
      };
      await withModelServer(responder, async (server) => {
        const error = await dispatch({
          agent: createFallbackAgent([claude(server), codex(server), gemini(server)], { on: ["quota", "unavailable"] }),
          brief: "Say hello.",
          repository: scratchRepository(),
          sandboxProvider: provider(),
          signal: controller.signal,
        }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect((error as Error).message).toBe("the operator gave up");
        expect(geminiCalls).toBe(0);
        expect(server.turns("gemini")).toEqual([]);
      });
    }, 180_000);
  },
);
