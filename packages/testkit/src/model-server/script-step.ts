import type { ModelRequest } from "./model-request.js";

/** Token counts a reply reports. */
export interface ReplyUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Reply with assistant text. */
export interface TextStep {
  readonly text: string;
  readonly usage?: ReplyUsage;
  readonly delayMs?: number;
}

/**
 * Reply with one tool call. `name` or `names`: the first name the request offers is used (CLIs name the
 * same tool differently: `Write`, `write_file`, `create`, `write`). `arguments` may depend on the chosen
 * name and the request. A request that offers none of the names is answered 400 and logged as a mismatch.
 */
export interface ToolCallStep {
  readonly toolCall: {
    readonly name?: string;
    readonly names?: readonly string[];
    readonly arguments: ToolArguments;
    readonly id?: string;
  };
  /** Text sent before the tool call in the same reply. */
  readonly text?: string;
  readonly usage?: ReplyUsage;
  readonly delayMs?: number;
}

/** Tool-call arguments: a JSON object (or a string for free-form tools), or computed from the chosen name and the request. */
export type ToolArguments =
  Readonly<Record<string, unknown>> | string | readonly unknown[] | ((name: string, request: ModelRequest) => unknown);

/** Answer with an HTTP error, in the API's own error shape unless `body` is given. */
export interface ErrorStep {
  readonly error: {
    readonly status: number;
    readonly message?: string;
    /** Raw body (string) or JSON body sent instead of the API's error shape. */
    readonly body?: string | Record<string, unknown>;
    readonly headers?: Readonly<Record<string, string>>;
  };
  readonly delayMs?: number;
}

/** A step decided from the request. */
export type StepFunction = (request: ModelRequest) => ScriptStep | Promise<ScriptStep>;

export type ScriptStep = TextStep | ToolCallStep | ErrorStep | StepFunction;

/** Decides every reply from the request (used when no script step is left). */
export type Responder = StepFunction;

/** A step resolved against a request: what the protocol renderers turn into bytes. */
export type ModelReply =
  | {
      readonly kind: "message";
      readonly text?: string;
      readonly toolCall?: { readonly id: string; readonly name: string; readonly arguments: unknown; readonly custom: boolean };
      readonly usage: ReplyUsage;
      /** Streamed text is cut into deltas of at most this many characters (default: one delta). */
      readonly deltaSize?: number;
    }
  | {
      readonly kind: "error";
      readonly status: number;
      readonly message: string;
      readonly body?: string | Record<string, unknown>;
      readonly headers?: Readonly<Record<string, string>>;
    };

export const DEFAULT_USAGE: ReplyUsage = Object.freeze({ inputTokens: 12, outputTokens: 7 });

export function isErrorStep(step: ScriptStep): step is ErrorStep {
  return typeof step === "object" && "error" in step;
}

export function isToolCallStep(step: ScriptStep): step is ToolCallStep {
  return typeof step === "object" && "toolCall" in step;
}
