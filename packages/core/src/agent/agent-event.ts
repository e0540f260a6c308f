import type { Usage } from "./usage.js";

/** The normalized events every agent decoder produces. */
export type AgentEvent =
  | { readonly type: "prompt"; readonly text: string }
  | { readonly type: "text"; readonly text: string; readonly delta?: boolean }
  | { readonly type: "tool-call"; readonly id?: string; readonly name: string; readonly input: unknown }
  | { readonly type: "tool-result"; readonly id?: string; readonly output: string; readonly isError?: boolean }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "conversation"; readonly id: string }
  | { readonly type: "finished"; readonly text?: string; readonly usage?: Usage; readonly isError?: boolean }
  | { readonly type: "failure"; readonly message: string; readonly classification?: FailureClassification }
  /** A line the decoder does not know: kept, never dropped. `value` is the parsed JSON when it parsed. */
  | { readonly type: "raw"; readonly line: string; readonly value?: unknown };

export type AgentEventType = AgentEvent["type"];

/** Why a CLI failed, when it matters to a fallback agent. */
export type FailureClassification = "quota" | "unavailable";
