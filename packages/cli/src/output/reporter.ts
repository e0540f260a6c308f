import type { OutpostError } from "@outpost/core";
import type { AgentObservation, DispatchResult } from "@outpost/dispatch";

/** What the run command tells about a dispatch, in whatever form the user asked for. */
export interface Reporter {
  start(info: { readonly agent: string; readonly provider: string; readonly label?: string }): void;
  event(observation: AgentObservation): void;
  warn(message: string): void;
  diagnostic(message: string): void;
  /** `agentOption` is how the command line named the agent (`--agent <name>`), for the continue hint; none, no hint. */
  result(result: DispatchResult, agentOption: string | undefined): void;
  error(error: OutpostError): void;
  /** Stops timers; called once at the end. */
  close(): void;
}
