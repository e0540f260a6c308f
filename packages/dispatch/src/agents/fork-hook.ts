import { OutpostError, type AgentTurn, type SandboxLease } from "@outpost/core";
import { forkHookOf } from "./custom-adapter.js";

/**
 * The resume of a turn once a custom agent's fork hook made its copy: `{ id: copy }`, a plain continuation of
 * the copy. Without a hook, or for a turn that forks nothing, the turn's own resume is returned unchanged and
 * `request()` gets `fork: true` (page 003: fork is attempted "through request() or the fork hook").
 */
export async function forkThroughHook(
  agent: unknown,
  turn: AgentTurn,
  lease: SandboxLease,
  signal: AbortSignal | undefined,
): Promise<AgentTurn["resume"]> {
  const hook = forkHookOf(agent);
  const original = turn.resume;
  if (!hook || original?.fork !== true) return original;
  const name = (agent as { name: string }).name;
  let copy: unknown;
  try {
    copy = await hook(original.id, { sandbox: lease, turn, ...(signal ? { signal } : {}) });
  } catch (cause) {
    if (OutpostError.isInstance(cause)) throw cause;
    throw new OutpostError(
      "session",
      `The fork hook of ${name} could not copy conversation ${original.id}: ${cause instanceof Error ? cause.message : String(cause)}.`,
      { cause, details: { agent: name, conversationId: original.id } },
    );
  }
  // The copy is what the turn continues and what gets captured: an empty id, or the original's, would lose the fork.
  if (typeof copy !== "string" || copy.trim() === "" || copy === original.id)
    throw new OutpostError(
      "session",
      `The fork hook of ${name} must return the id of a new conversation copied from ${original.id}; it returned ${JSON.stringify(copy)}.`,
      { details: { agent: name, conversationId: original.id } },
    );
  return { id: copy };
}
