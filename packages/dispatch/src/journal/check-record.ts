import { OutpostError, type AgentEvent } from "@outpost/core";
import type { JournalRecord } from "./journal-format.js";

const EVENT_TYPES = new Set<AgentEvent["type"]>([
  "prompt",
  "text",
  "tool-call",
  "tool-result",
  "usage",
  "conversation",
  "finished",
  "failure",
  "raw",
]);

/** Checks the shape of one record read from a journal: a journal is data from elsewhere, never trusted. */
export function checkRecord(value: unknown, where: string): JournalRecord {
  const record = value as Record<string, unknown> | null;
  const fail = (problem: string): never => {
    throw new OutpostError("replay", `The journal record at ${where} is malformed: ${problem}. Record the run again.`, {
      details: { where },
    });
  };
  if (!record || typeof record !== "object") return fail("not an object");
  if (typeof record.pass !== "number" || !Number.isInteger(record.pass) || record.pass < 1) fail("no pass number");
  switch (record.kind) {
    case "turn-start":
      if (typeof record.prompt !== "string") fail("no prompt");
      if (record.steering !== undefined && !(Array.isArray(record.steering) && record.steering.every((line) => typeof line === "string")))
        fail("steering is not a list of strings");
      if (record.agent !== undefined && typeof record.agent !== "string") fail("agent is not a string");
      if (record.repair !== undefined && !(typeof record.repair === "number" && Number.isInteger(record.repair) && record.repair > 0))
        fail("repair is not a positive integer");
      break;
    case "steer":
      if (record.delivery !== "injected" || typeof record.text !== "string" || typeof record.atMs !== "number")
        fail("not an injected instruction");
      break;
    case "fallback":
      if (
        typeof record.from !== "string" ||
        typeof record.to !== "string" ||
        (record.classification !== "quota" && record.classification !== "unavailable") ||
        typeof record.message !== "string" ||
        (record.rule !== undefined && typeof record.rule !== "string") ||
        (record.usage !== undefined && (!record.usage || typeof record.usage !== "object"))
      )
        fail("not a fallback switch");
      break;
    case "event": {
      const event = record.event as { type?: unknown } | null;
      if (typeof record.atMs !== "number" || !event || typeof event !== "object" || !EVENT_TYPES.has(event.type as AgentEvent["type"]))
        fail("not a known event");
      break;
    }
    case "turn-end":
      if (typeof record.text !== "string" || !record.usage || typeof record.usage !== "object" || typeof record.durationMs !== "number")
        fail("no text, usage or duration");
      break;
    case "commit": {
      const commit = record.commit as Record<string, unknown> | null;
      const hex = (text: unknown): boolean => typeof text === "string" && /^[0-9a-f]{40,64}$/.test(text);
      const identity = (side: unknown): boolean => {
        const value = side as Record<string, unknown> | null;
        // Rebuilt into a commit header: a line break or angle bracket would forge another header.
        const plain = (text: unknown): boolean => typeof text === "string" && !/[<>\n\0]/.test(text);
        return !!value && plain(value.name) && plain(value.email) && typeof value.date === "string" && /^\d+ [+-]\d{4}$/.test(value.date);
      };
      if (
        !commit ||
        !hex(commit.id) ||
        !hex(commit.tree) ||
        !Array.isArray(commit.parents) ||
        !commit.parents.every(hex) ||
        !identity(commit.author) ||
        !identity(commit.committer) ||
        typeof commit.message !== "string" ||
        typeof commit.patch !== "string"
      )
        fail("not a complete commit");
      break;
    }
    default:
      fail(`unknown kind ${JSON.stringify(record.kind)}`);
  }
  return record as unknown as JournalRecord;
}
