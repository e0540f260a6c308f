import type { Readable } from "node:stream";
import type { AgentLiveSession, AgentTurn } from "@outpost/core";

/**
 * A turn that takes instructions while it runs (steering by injection): runTurn opens the agent's live session
 * for the turn, runs its command with `input` as live stdin, and shows the session every stdout line.
 */
export interface LiveTurnInput {
  /** Live stdin, after the command's own `stdin`; it ends with the turn's final event. */
  readonly input: Readable;
  /** Opens the agent's live session for this turn; instructions go through it from now on. */
  open(turn: AgentTurn): AgentLiveSession;
  /** One stdout line, before it is decoded: the session may answer it on stdin. */
  line(line: string): void;
}
