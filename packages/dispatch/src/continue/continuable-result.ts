import { OutpostError } from "@outpost/core";
import type { Brief } from "../brief/brief.js";
import type { DispatchOptions, DispatchResult } from "../dispatch-options.js";

/** Options of `result.resume()` / `result.fork()`: any dispatch option but the brief and the continuation. */
export type ContinueOptions = Omit<DispatchOptions, "brief" | "continuation" | "agent"> & {
  /** Another agent for this turn (a replay agent is single-use, so one that replayed needs this). */
  readonly agent?: DispatchOptions["agent"];
};

/** A dispatch result that can go on: `resume()` is the next turn of its conversation, `fork()` a branch of it. */
export interface ContinuableResult<T = unknown> extends DispatchResult<T> {
  /** The next turn of this conversation: a dispatch of its own with this result's agent, provider and storage. */
  resume(brief: Brief, options?: ContinueOptions): Promise<ContinuableResult>;
  /** A new conversation branched from this one (the original stays as it is): a dispatch of its own. */
  fork(brief: Brief, options?: ContinueOptions): Promise<ContinuableResult>;
}

type Run = (options: DispatchOptions) => Promise<ContinuableResult>;

/**
 * Adds `resume` and `fork` to a result, as methods that are not enumerable: the result stays a plain record
 * (JSON, spreads and equality see the same fields as before). What is carried: the agent, the provider, the
 * repository, where conversations are stored (`conversationHome`) and `redact`. Steering is not: page 004 says
 * `resume()` and `fork()` do not reuse it, so one passed to the first dispatch stays ended.
 */
export function continuable<T>(result: DispatchResult<T>, origin: DispatchOptions, run: Run): ContinuableResult<T> {
  const next =
    (fork: boolean) =>
    (brief: Brief, options: ContinueOptions = {}) => {
      const agent = options.agent ?? origin.agent;
      const how = fork ? "fork()" : "resume()";
      if (result.conversationId === undefined || result.conversationError !== undefined)
        return Promise.reject(
          new OutpostError(
            "session",
            `${how} needs the conversation of dispatch ${result.dispatchId}, which was not captured` +
              `${result.conversationError ? ` (${result.conversationError.message})` : ""}. ` +
              "Give the agent conversation storage, or start a new dispatch.",
            { details: { dispatchId: result.dispatchId } },
          ),
        );
      if (options.agent === undefined && (agent as { kind?: unknown }).kind === "replay")
        return Promise.reject(
          new OutpostError(
            "configuration",
            `${how} cannot reuse the replay agent of dispatch ${result.dispatchId}: a replay agent is single-use. Pass { agent } to continue with a live agent.`,
          ),
        );
      return run({
        agent,
        ...(origin.sandboxProvider ? { sandboxProvider: origin.sandboxProvider } : {}),
        ...(origin.repository !== undefined ? { repository: origin.repository } : {}),
        ...(origin.conversationHome !== undefined ? { conversationHome: origin.conversationHome } : {}),
        // The conversation holds what the first dispatch redacted: its continuation redacts it too.
        ...(origin.redact !== undefined ? { redact: origin.redact } : {}),
        ...options,
        brief,
        continuation: { id: result.conversationId, ...(fork ? { fork: true } : {}) },
      });
    };
  return Object.defineProperties(result, {
    // Configurable: a sandbox routes a result's continuations back through its own one-at-a-time rule.
    resume: { value: next(false), enumerable: false, configurable: true },
    fork: { value: next(true), enumerable: false, configurable: true },
  }) as ContinuableResult<T>;
}
