import type { Responder } from "./script-step.js";
import { writeFileStep } from "./write-file-step.js";

export interface ConversationResponderOptions {
  /** File the first turn writes, relative to the workspace. Default `hello.txt`. */
  readonly file?: string;
  /** Its content. Default `hi`. */
  readonly content?: string;
  /** Text of the reply after the tool result. Default `MARKER_TURN1_DONE`. */
  readonly turn1Marker?: string;
  /** A prompt containing this word is a later turn. Default `TURN2`. */
  readonly trigger?: string;
  /** Text of the later turn's reply, followed by ` history_has_turn1=<bool>`. Default `MARKER_TURN2_DONE`. */
  readonly turn2Marker?: string;
}

/**
 * The stateless two-turn conversation every agent e2e test needs, decided from each request alone:
 * - a prompt containing the trigger (`TURN2`) → `MARKER_TURN2_DONE history_has_turn1=<bool>`, the bool saying
 *   whether the request carried turn 1's marker (proof that resume sent the history);
 * - tools offered and no tool result yet → one tool call that writes the file;
 * - after a tool result → `MARKER_TURN1_DONE`.
 */
export function conversationResponder(options: ConversationResponderOptions = {}): Responder {
  const file = options.file ?? "hello.txt";
  const content = options.content ?? "hi";
  const turn1Marker = options.turn1Marker ?? "MARKER_TURN1_DONE";
  const trigger = options.trigger ?? "TURN2";
  const turn2Marker = options.turn2Marker ?? "MARKER_TURN2_DONE";
  return (request) => {
    if (request.afterToolResult) {
      return { text: request.prompt.includes(trigger) ? laterTurn() : turn1Marker };
    }
    if (request.prompt.includes(trigger)) return { text: laterTurn() };
    if (request.tools.length > 0) return writeFileStep(file, content);
    return { text: turn1Marker };

    function laterTurn(): string {
      return `${turn2Marker} history_has_turn1=${request.transcript.includes(turn1Marker)}`;
    }
  };
}
