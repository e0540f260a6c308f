import { readFile } from "node:fs/promises";
import { isOutpostError } from "@outpost/core";
import type { AgentAdapter, AgentFeatures, ConversationContext, ConversationRecord, OutpostErrorCode, Usage } from "@outpost/core";

/** An agent adapter, or a replay agent (which captures nothing and reads no transcript). */
type CapturingAgent = AgentFeatures & Partial<Pick<AgentAdapter, "transcriptUsage">>;

export interface CapturedConversation {
  readonly record?: ConversationRecord;
  /** Usage read back from the transcript, when the agent knows how. */
  readonly usage?: Usage;
  /** The agent saved no conversation under its id (the store said so: code `session`, `details.absent`). */
  readonly missing?: true;
  /** Why nothing was captured although the agent keeps conversations: the result reports it. */
  readonly failure?: { readonly code: OutpostErrorCode; readonly message: string };
}

/**
 * A turn is running: the store may start its capture's sandbox work now (see `prepareCapture`), so the
 * capture after the turn waits for less. Nothing here can fail the turn.
 */
export function prepareCapture(agent: CapturingAgent, context: ConversationContext): void {
  if (!agent.storage?.prepareCapture || agent.capture === false) return;
  try {
    agent.storage.prepareCapture(context);
  } catch {
    // A head start only: capture does the work itself.
  }
}

/**
 * Saves the turn's conversation to the host. A storage problem is a warning and a `failure` the result
 * reports, never a failed turn (only `requireConversation` turns it into a failed dispatch, after the turns).
 */
export async function captureConversation(
  agent: CapturingAgent,
  id: string | undefined,
  context: ConversationContext,
  warn: (message: string) => void,
): Promise<CapturedConversation> {
  if (!agent.storage || agent.capture === false) return {};
  if (!id) {
    const text = `${agent.name} reported no conversation id, so its conversation was not captured and cannot be continued.`;
    warn(text);
    return { failure: { code: "session", message: `${text} Check that its CLI version prints its session id.` } };
  }
  let record: ConversationRecord;
  try {
    record = await agent.storage.capture(id, context);
  } catch (error) {
    const text = `Could not capture ${agent.name} conversation ${id}: ${message(error)}`;
    warn(`${text}${/[.!?]$/.test(text) ? "" : "."} The turn's work is kept, but it cannot be continued elsewhere.`);
    // A plugin that throws something other than an OutpostError still fails the capture as a session problem.
    const failure = { code: isOutpostError(error) ? error.code : ("session" as const), message: text };
    return isOutpostError(error, "session") && error.details?.["absent"] === true ? { missing: true, failure } : { failure };
  }
  return { record, usage: await transcriptUsage(agent, record, warn) };
}

/** A reader that fails costs the usage it would have read, never the captured conversation. */
async function transcriptUsage(
  agent: CapturingAgent,
  record: ConversationRecord,
  warn: (message: string) => void,
): Promise<Usage | undefined> {
  if (!agent.transcriptUsage) return undefined;
  try {
    return agent.transcriptUsage(await readFile(record.file, "utf8"));
  } catch (error) {
    warn(
      `Could not read ${agent.name} usage from its captured transcript ${record.file}: ${message(error)}. The conversation is kept; the turn's usage is what its events reported.`,
    );
    return undefined;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
