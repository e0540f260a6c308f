import { OutpostError } from "@outpost/core";

/** What the watchdog does when it finds a stuck agent. */
export type WatchdogAction = "stop" | "warn" | "steer";

/**
 * Notices an agent that is stuck: the same tool call (same name, same arguments) or the same text again and
 * again within one turn, or no new event for a while. Only decoded events count (not undecoded `raw` lines).
 */
export interface Watchdog {
  /** The same tool call with the same arguments this many times in one turn; default 5. */
  readonly repeatedToolCalls?: number;
  /** The same text (a whole message, trimmed) this many times in one turn; default 5. */
  readonly repeatedTexts?: number;
  /** No new decoded event for this long; off by default (`idleMs` still bounds silence on stdout). */
  readonly silenceMs?: number;
  /**
   * `stop` (default): the agent's process tree is stopped and the dispatch fails with code `stuck`, its work kept;
   * `warn`: a warning and a `watchdog` event, the turn goes on; `steer`: `message` is sent through the dispatch's
   * `steering` (required), injected or by resuming the conversation.
   */
  readonly action?: WatchdogAction;
  /** With `steer`: the instruction sent; a default asks the agent to change its approach. */
  readonly message?: string;
}

export const WATCHDOG_DEFAULTS = Object.freeze({ repeatedToolCalls: 5, repeatedTexts: 5 });

/** Refuses a malformed watchdog before anything is allocated (code `configuration`). */
export function assertWatchdog(watchdog: unknown, steering: unknown): asserts watchdog is Watchdog | undefined {
  if (watchdog === undefined) return;
  if (typeof watchdog !== "object" || watchdog === null || Array.isArray(watchdog))
    throw configuration("watchdog must be an object: { repeatedToolCalls?, repeatedTexts?, silenceMs?, action?, message? }.");
  const { repeatedToolCalls, repeatedTexts, silenceMs, action, message } = watchdog as Watchdog;
  for (const [name, value, least] of [
    ["repeatedToolCalls", repeatedToolCalls, 2],
    ["repeatedTexts", repeatedTexts, 2],
    ["silenceMs", silenceMs, 1],
  ] as const)
    if (value !== undefined && (typeof value !== "number" || !Number.isInteger(value) || value < least || value > 2_147_483_647))
      throw configuration(`watchdog.${name} must be an integer of at least ${least}; got ${String(value)}.`);
  if (action !== undefined && action !== "stop" && action !== "warn" && action !== "steer")
    throw configuration(`watchdog.action must be "stop", "warn" or "steer"; got ${JSON.stringify(action)}.`);
  if (message !== undefined && (typeof message !== "string" || message.trim() === ""))
    throw configuration("watchdog.message must be a non-empty instruction.");
  if (action === "steer" && steering === undefined)
    throw configuration('watchdog.action "steer" sends its message through the dispatch\'s steering: pass steering: createSteering().');
}

function configuration(message: string): OutpostError {
  return new OutpostError("configuration", message);
}
