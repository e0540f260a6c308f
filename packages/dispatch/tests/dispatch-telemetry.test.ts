import { describe, expect, it } from "vitest";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { OutpostError } from "@outpost/core";
import { DispatchSpans } from "../src/telemetry/dispatch-telemetry.js";

function tracing(exporter: SpanExporter) {
  return new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
}

describe("DispatchSpans", () => {
  it("one trace: the dispatch span and one child per stage, the failed stage marked", async () => {
    const exporter = new InMemorySpanExporter();
    const spans = await DispatchSpans.open({ tracer: tracing(exporter).getTracer("test") }, { "outpost.agent": "claude" });
    spans.enter("workspace");
    spans.enter("turn", { "outpost.pass": 1 });
    spans.event("fallback", { from: "claude" });
    spans.end(new OutpostError("process", "boom"));
    const finished = exporter.getFinishedSpans();
    expect(finished.map((span) => span.name)).toEqual(["outpost.workspace", "outpost.turn", "outpost.dispatch"]);
    const root = finished.find((span) => span.name === "outpost.dispatch")!;
    expect(new Set(finished.map((span) => span.spanContext().traceId)).size).toBe(1);
    for (const span of finished.filter((entry) => entry !== root)) expect(span.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(root.attributes["outpost.error.code"]).toBe("process");
    expect(finished[1]!.events.map((event) => event.name)).toEqual(["fallback", "exception"]);
  });

  it("an exporter that throws, or a tracer that throws, changes nothing", async () => {
    const throwing: SpanExporter = {
      export: () => {
        throw new Error("exporter down");
      },
      shutdown: () => Promise.resolve(),
    };
    const spans = await DispatchSpans.open({ tracer: tracing(throwing).getTracer("test") }, {});
    expect(() => {
      spans.enter("sandbox");
      spans.annotate({ x: 1 });
      spans.end();
    }).not.toThrow();
    const broken = await DispatchSpans.open(
      {
        tracer: {
          startSpan: () => {
            throw new Error("tracer down");
          },
        } as never,
      },
      {},
    );
    expect(() => {
      broken.enter("turn");
      broken.end(new Error("x"));
    }).not.toThrow();
  });

  it("no telemetry option: nothing is created", async () => {
    const spans = await DispatchSpans.open(undefined, {});
    expect(() => {
      spans.enter("turn");
      spans.end();
    }).not.toThrow();
  });
});
