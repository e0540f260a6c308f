import { jsonObjectField, parseJsonLine } from "@outpost/core";
import type { Usage } from "@outpost/core";
import { codexUsage } from "./codex-decoder.js";

/**
 * The last turn's own usage, read from a captured rollout: the thread's running total at the end
 * (`event_msg` / `token_count` → `info.total_token_usage`) minus the running total when the last turn started
 * (`task_started`). Codex's `turn.completed` reports the running total of the whole thread, so a continued
 * turn would otherwise be charged for every earlier turn. Undefined when the rollout records no totals.
 */
export function codexTranscriptUsage(text: string): Usage | undefined {
  let before: Record<string, unknown> = {};
  let latest: Record<string, unknown> | undefined;
  for (const line of text.split("\n")) {
    // Only event_msg lines matter; skip the parse for the large response items.
    if (!line.includes('"event_msg"')) continue;
    const payload = jsonObjectField(parseJsonLine(line), "payload");
    if (payload?.["type"] === "task_started") {
      before = latest ?? {};
    } else if (payload?.["type"] === "token_count") {
      latest = jsonObjectField(jsonObjectField(payload, "info"), "total_token_usage") ?? latest;
    }
  }
  if (latest === undefined) return undefined;
  return codexUsage(difference(latest, before));
}

function difference(total: Record<string, unknown>, before: Record<string, unknown>): Record<string, unknown> {
  // A total below the earlier one means the count restarted with this run: the total is then the turn's own.
  const restarted = Object.entries(total).some(
    ([key, value]) => typeof value === "number" && typeof before[key] === "number" && value < before[key],
  );
  if (restarted) return total;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(total)) {
    const earlier = before[key];
    result[key] = typeof value === "number" && typeof earlier === "number" ? value - earlier : value;
  }
  return result;
}
