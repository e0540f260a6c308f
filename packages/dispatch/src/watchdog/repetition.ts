import type { AgentEvent } from "@outpost/core";

/** One thing the watchdog noticed. */
export interface WatchdogFinding {
  readonly rule: "repeatedToolCall" | "repeatedText" | "silence";
  /** The repeated tool call (`name` and its arguments as JSON, cut to 200 characters) or text (cut likewise). */
  readonly subject?: string;
  /** How many times it was seen, for a repetition. */
  readonly count?: number;
  /** How long nothing came, for silence. */
  readonly silentMs?: number;
}

const SUBJECT_CHARS = 200;

/**
 * Counts identical tool calls and identical texts within one turn. A key is counted again from zero once it
 * has been reported, so a warned agent that keeps looping is reported again after as many repeats.
 */
export class RepetitionCounter {
  private readonly seen = new Map<string, number>();

  constructor(private readonly limits: { readonly toolCalls: number; readonly texts: number }) {}

  /** The finding this event completes, if any. */
  add(event: AgentEvent): WatchdogFinding | undefined {
    if (event.type === "tool-call")
      return this.count("tool", `${event.name} ${stableJson(event.input)}`, this.limits.toolCalls, "repeatedToolCall");
    // A streamed delta is part of a message, not a message of its own.
    if (event.type === "text" && event.delta !== true && event.text.trim() !== "")
      return this.count("text", event.text.trim(), this.limits.texts, "repeatedText");
    return undefined;
  }

  private count(kind: string, subject: string, limit: number, rule: WatchdogFinding["rule"]): WatchdogFinding | undefined {
    const key = `${kind}\0${subject}`;
    const count = (this.seen.get(key) ?? 0) + 1;
    if (count < limit) {
      this.seen.set(key, count);
      return undefined;
    }
    this.seen.delete(key);
    return { rule, subject: subject.length > SUBJECT_CHARS ? `${subject.slice(0, SUBJECT_CHARS)}…` : subject, count };
  }
}

/** JSON with object keys sorted, so the same arguments in another order are the same call. */
function stableJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner && typeof inner === "object" && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : inner,
    ) ?? "undefined"
  );
}

/** A finding in words, for messages. */
export function describeFinding(finding: WatchdogFinding): string {
  if (finding.rule === "silence") return `no new event for ${finding.silentMs} ms`;
  const what = finding.rule === "repeatedToolCall" ? "the same tool call" : "the same text";
  return `${what} ${finding.count} times (${finding.subject})`;
}
