import { addUsage, parseJsonLine, jsonObjectField } from "@outpost/core";
import type { Usage } from "@outpost/core";
import { usageOf } from "./copilot-decoder.js";

/**
 * Token usage of the last turn, read from a captured Copilot session: the `session.usage_record`
 * lines of `events.jsonl` after the last `session.start` / `session.resume` (one CLI run = one turn).
 * Copilot prints no token counts on stdout, so this is the only source. Accepts the raw
 * `events.jsonl` text or a captured bundle (JSON) that holds it. Undefined when nothing was recorded.
 */
export function copilotTranscriptUsage(text: string): Usage | undefined {
  const events = eventsText(text);
  if (events === undefined) return undefined;
  let turn: Usage | undefined;
  for (const line of events.split("\n")) {
    // Skip the JSON parse for the (large) lines that cannot matter.
    if (!line.includes('"session.')) continue;
    const value = parseJsonLine(line);
    if (value === undefined) continue;
    if (value["type"] === "session.start" || value["type"] === "session.resume") {
      turn = undefined;
    } else if (value["type"] === "session.usage_record") {
      const usage = usageOf(jsonObjectField(jsonObjectField(value, "data") ?? {}, "usage"));
      if (usage !== undefined) turn = turn === undefined ? usage : addUsage(turn, usage);
    }
  }
  return turn;
}

function eventsText(text: string): string | undefined {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("{")) return text;
  // A JSONL transcript also starts with "{": only a single JSON document is a bundle.
  let whole: unknown;
  try {
    whole = JSON.parse(trimmed);
  } catch {
    return text;
  }
  return bundledEvents(whole) ?? findEventsFile(whole, 0) ?? text;
}

/** `events.jsonl` of a session bundle (`{ outpost: "session-bundle", files: [{ path, encoding, data }] }`). */
function bundledEvents(whole: unknown): string | undefined {
  const files = typeof whole === "object" && whole !== null ? (whole as Record<string, unknown>)["files"] : undefined;
  if (!Array.isArray(files)) return undefined;
  for (const entry of files) {
    if (typeof entry !== "object" || entry === null) continue;
    const { path, encoding, data } = entry as Record<string, unknown>;
    if (typeof path !== "string" || typeof data !== "string" || !(path === "events.jsonl" || path.endsWith("/events.jsonl"))) continue;
    return encoding === "base64" ? Buffer.from(data, "base64").toString("utf8") : data;
  }
  return undefined;
}

function findEventsFile(value: unknown, depth: number): string | undefined {
  if (depth > 4 || typeof value !== "object" || value === null) return undefined;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (key === "events.jsonl" || key.endsWith("/events.jsonl")) {
      if (typeof inner === "string") return inner;
      if (typeof inner === "object" && inner !== null) {
        const content = (inner as Record<string, unknown>)["content"] ?? (inner as Record<string, unknown>)["text"];
        if (typeof content === "string") return content;
      }
    }
    const found = findEventsFile(inner, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
