import { context, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";

/** The `telemetry` option: spans go through `@opentelemetry/api`; the application registers the SDK. */
export interface DispatchTelemetry {
  /** Default: `trace.getTracer("@outpost/dispatch")` from the globally registered provider. */
  readonly tracer?: Tracer;
  /** Added to the dispatch span. */
  readonly attributes?: Attributes;
}

export const DISPATCH_SPAN = "outpost.dispatch";
const TRACER_NAME = "@outpost/dispatch";

/**
 * One span for the whole dispatch and one child span per stage, ended when the next stage starts.
 * Every call is guarded: a failing tracer, processor or exporter never changes the dispatch.
 */
export class DispatchSpans {
  private readonly tracer: Tracer | undefined;
  private root: Span | undefined;
  private stage: Span | undefined;

  constructor(telemetry: DispatchTelemetry | undefined, attributes: Attributes) {
    this.tracer = telemetry ? guard(() => telemetry.tracer ?? trace.getTracer(TRACER_NAME)) : undefined;
    if (this.tracer)
      this.root = guard(() => this.tracer!.startSpan(DISPATCH_SPAN, { attributes: { ...attributes, ...telemetry?.attributes } }));
  }

  /** Ends the current stage span and starts `outpost.<name>` under the dispatch span. */
  enter(name: string, attributes: Attributes = {}): void {
    if (!this.root) return;
    this.endStage();
    this.stage = guard(() => {
      const parent = trace.setSpan(context.active(), this.root!);
      return this.tracer!.startSpan(`outpost.${name}`, { attributes: { "outpost.stage": name, ...attributes } }, parent);
    });
  }

  /** Adds attributes to the dispatch span (branch, commit count, usage…). */
  annotate(attributes: Attributes): void {
    guard(() => this.root?.setAttributes(attributes));
  }

  /** An event on the current stage (a fallback, a steering message). */
  event(name: string, attributes: Attributes = {}): void {
    guard(() => (this.stage ?? this.root)?.addEvent(name, attributes));
  }

  /** Ends the stage and the dispatch span, marking both failed when `error` is given. */
  end(error?: unknown): void {
    if (!this.root) return;
    this.endStage(error);
    const root = this.root;
    this.root = undefined;
    guard(() => {
      if (error !== undefined) fail(root, error);
      root.end();
    });
  }

  private endStage(error?: unknown): void {
    const stage = this.stage;
    this.stage = undefined;
    if (stage)
      guard(() => {
        if (error !== undefined) fail(stage, error);
        stage.end();
      });
  }
}

function fail(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  if (typeof code === "string") span.setAttribute("outpost.error.code", code);
  if (error instanceof Error) span.recordException(error);
}

function guard<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    // Telemetry is best effort: its failures never reach the dispatch.
    return undefined;
  }
}
