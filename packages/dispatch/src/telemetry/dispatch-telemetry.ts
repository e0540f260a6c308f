import type { Attributes, Span, Tracer } from "@opentelemetry/api";
import { createRedactor, type Redactor } from "../redact/redactor.js";

type OpenTelemetryApi = typeof import("@opentelemetry/api");

/** The `telemetry` option: spans go through `@opentelemetry/api`; the application registers the SDK. */
export interface DispatchTelemetry {
  /** Default: `trace.getTracer("@outpost/dispatch")` from the globally registered provider. */
  readonly tracer?: Tracer;
  /** Added to the dispatch span. */
  readonly attributes?: Attributes;
}

export const DISPATCH_SPAN = "outpost.dispatch";

/** Span names that differ from their stage's name: the work's way home is the `sync` span, as the reference names it. */
const STAGE_SPANS: Readonly<Record<string, string>> = Object.freeze({ syncBack: "sync" });
const TRACER_NAME = "@outpost/dispatch";

/**
 * One span for the whole dispatch and one child span per stage, ended when the next stage starts.
 * Every call is guarded: a failing tracer, processor or exporter never changes the dispatch.
 */
export class DispatchSpans {
  private readonly tracer: Tracer | undefined;
  private root: Span | undefined;
  private stage: Span | undefined;

  /**
   * The API is loaded only when `telemetry` is given: it is some 25 CommonJS files, which every dispatch
   * without telemetry (and every fresh `outpost run`) would otherwise load for nothing.
   */
  static async open(
    telemetry: DispatchTelemetry | undefined,
    attributes: Attributes,
    redactor: Redactor = createRedactor(undefined),
  ): Promise<DispatchSpans> {
    const api = telemetry ? await import("@opentelemetry/api").catch(() => undefined) : undefined;
    return new DispatchSpans(api, telemetry, attributes, redactor);
  }

  private constructor(
    private readonly api: OpenTelemetryApi | undefined,
    telemetry: DispatchTelemetry | undefined,
    attributes: Attributes,
    // Every attribute, event and status message passes through it (the `redact` option).
    private readonly redactor: Redactor,
  ) {
    this.tracer = telemetry && api ? guard(() => telemetry.tracer ?? api.trace.getTracer(TRACER_NAME)) : undefined;
    if (this.tracer)
      this.root = guard(() =>
        this.tracer!.startSpan(DISPATCH_SPAN, { attributes: redactor.value({ ...attributes, ...telemetry?.attributes }) }),
      );
  }

  /** Ends the current stage span and starts `outpost.<span name>` under the dispatch span. */
  enter(name: string, attributes: Attributes = {}): void {
    if (!this.root) return;
    this.endStage();
    this.stage = guard(() => {
      const parent = this.api!.trace.setSpan(this.api!.context.active(), this.root!);
      const spanName = `outpost.${STAGE_SPANS[name] ?? name}`;
      return this.tracer!.startSpan(spanName, { attributes: this.redactor.value({ "outpost.stage": name, ...attributes }) }, parent);
    });
  }

  /** A span under the current stage (each turn, each capture); ended by the caller. */
  nested(name: string, attributes: Attributes = {}): { end(error?: unknown): void } {
    const parentSpan = this.stage ?? this.root;
    if (!parentSpan) return { end: () => undefined };
    const api = this.api!;
    const span = guard(() =>
      this.tracer!.startSpan(name, { attributes: this.redactor.value(attributes) }, api.trace.setSpan(api.context.active(), parentSpan)),
    );
    return {
      end: (error?: unknown) =>
        guard(() => {
          if (!span) return;
          if (error !== undefined) fail(api, span, error, this.redactor);
          span.end();
        }),
    };
  }

  /** Adds attributes to the dispatch span (branch, commit count, usage…). */
  annotate(attributes: Attributes): void {
    guard(() => this.root?.setAttributes(this.redactor.value(attributes)));
  }

  /** An event on the current stage (a fallback, a steering message). */
  event(name: string, attributes: Attributes = {}): void {
    guard(() => (this.stage ?? this.root)?.addEvent(name, this.redactor.value(attributes)));
  }

  /** Ends the stage and the dispatch span, marking both failed when `error` is given. */
  end(error?: unknown): void {
    if (!this.root) return;
    this.endStage(error);
    const root = this.root;
    this.root = undefined;
    guard(() => {
      if (error !== undefined) fail(this.api!, root, error, this.redactor);
      root.end();
    });
  }

  private endStage(error?: unknown): void {
    const stage = this.stage;
    this.stage = undefined;
    if (stage)
      guard(() => {
        if (error !== undefined) fail(this.api!, stage, error, this.redactor);
        stage.end();
      });
  }
}

function fail(api: OpenTelemetryApi, span: Span, error: unknown, redactor: Redactor): void {
  const code = (error as { code?: unknown } | null)?.code;
  const message = redactor.text(error instanceof Error ? error.message : String(error));
  span.setStatus({ code: api.SpanStatusCode.ERROR, message });
  if (typeof code === "string") span.setAttribute("outpost.error.code", code);
  // The exception's message and stack as the span records them, redacted.
  if (error instanceof Error)
    span.recordException({ name: error.name, message, ...(error.stack ? { stack: redactor.text(error.stack) } : {}) });
}

function guard<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    // Telemetry is best effort: its failures never reach the dispatch.
    return undefined;
  }
}
