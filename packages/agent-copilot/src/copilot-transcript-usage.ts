import { addUsage, isJsonObject, parseJsonLine, jsonObjectField } from "@outpost/core";
import type { Usage } from "@outpost/core";
import { usageOf } from "./copilot-decoder.js";
import type { CopilotFeatures } from "./copilot-features.js";

/**
 * Token usage of the last turn, read from a captured Copilot session (one CLI run = one turn: the lines
 * after the last `session.start` / `session.resume` of `events.jsonl`). Two sources, in the order `prefer`
 * gives: the `session.usage_record` lines (1.0.102), or the per-model totals of the run's `session.shutdown`
 * (what 1.0.92 writes). Copilot prints no token counts on stdout, so these are the only sources. Accepts the
 * raw `events.jsonl` text or a captured bundle (JSON) that holds it. `{ incomplete: true }` when the run
 * recorded neither.
 */
export function copilotTranscriptUsage(text: string, prefer: CopilotFeatures["usageSource"] = "usage-records"): Usage | undefined {
  const events = eventsText(text);
  if (events === undefined) return undefined;
  let records: Usage | undefined;
  let shutdown: Usage | undefined;
  // Shutdown totals run over the whole session (1.0.92 reports 36 input tokens for a resumed 12-token run):
  // the run's own is its total minus the one the previous run ended with.
  let latest: Usage | undefined;
  let baseline: Usage | undefined;
  for (const line of events.split("\n")) {
    // Skip the JSON parse for the (large) lines that cannot matter.
    if (!line.includes('"session.')) continue;
    const value = parseJsonLine(line);
    if (value === undefined) continue;
    const data = jsonObjectField(value, "data") ?? {};
    if (value["type"] === "session.start" || value["type"] === "session.resume") {
      records = undefined;
      shutdown = undefined;
      baseline = latest;
    } else if (value["type"] === "session.usage_record") {
      const usage = usageOf(jsonObjectField(data, "usage"));
      if (usage !== undefined) records = records === undefined ? usage : addUsage(records, usage);
    } else if (value["type"] === "session.shutdown") {
      shutdown = shutdownTotals(data) ?? shutdown;
      latest = shutdown ?? latest;
    }
  }
  if (shutdown !== undefined && baseline !== undefined) shutdown = subtract(shutdown, baseline);
  const found = prefer === "usage-records" ? (records ?? shutdown) : (shutdown ?? records);
  return found ?? { incomplete: true };
}

/** `total - before` counter by counter; `total` itself when a counter went down (the count restarted). */
function subtract(total: Usage, before: Usage): Usage {
  const result: Record<string, number> = {};
  for (const [key, value] of Object.entries(total)) {
    if (typeof value !== "number") continue;
    const earlier = (before as Record<string, unknown>)[key];
    if (typeof earlier === "number" && earlier > value) return total;
    result[key] = typeof earlier === "number" ? value - earlier : value;
  }
  return result;
}

/** The per-model totals of a `session.shutdown` (`modelMetrics`, under `accountingSnapshot` since 1.0.102). */
function shutdownTotals(data: Record<string, unknown>): Usage | undefined {
  const metrics = jsonObjectField(data, "modelMetrics") ?? jsonObjectField(jsonObjectField(data, "accountingSnapshot"), "modelMetrics");
  if (metrics === undefined) return undefined;
  let total: Usage | undefined;
  for (const model of Object.values(metrics)) {
    const usage = usageOf(jsonObjectField(isJsonObject(model) ? model : {}, "usage"));
    if (usage !== undefined) total = total === undefined ? usage : addUsage(total, usage);
  }
  return total;
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
