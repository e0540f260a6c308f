import { jsonObject, jsonString } from "@outpost/core";
import type { AgentEvent } from "@outpost/core";

type ToolCallEvent = Extract<AgentEvent, { type: "tool-call" }>;

/**
 * The tool call an app-server thread item stands for (`commandExecution`, `fileChange`, `mcpToolCall`,
 * `dynamicToolCall`, `webSearch`), named as `codex exec --json` items are; undefined for other items.
 */
export function appServerToolCall(item: Record<string, unknown>): ToolCallEvent | undefined {
  const id = typeof item["id"] === "string" ? { id: item["id"] } : {};
  switch (item["type"]) {
    case "commandExecution":
      return { type: "tool-call", ...id, name: "shell", input: { command: item["command"] } };
    case "fileChange":
      return { type: "tool-call", ...id, name: "apply_patch", input: { changes: item["changes"] } };
    case "mcpToolCall":
      return {
        type: "tool-call",
        ...id,
        name: `${jsonString(item["server"]) ?? "mcp"}.${jsonString(item["tool"]) ?? "tool"}`,
        input: item["arguments"] ?? {},
      };
    case "dynamicToolCall":
      return { type: "tool-call", ...id, name: jsonString(item["tool"]) ?? "tool", input: item["arguments"] ?? {} };
    case "webSearch":
      return { type: "tool-call", ...id, name: "web_search", input: { query: item["query"] } };
    default:
      return undefined;
  }
}

/** The result of a completed tool item: its output, failed when its status or exit code says so. */
export function appServerToolResult(item: Record<string, unknown>): AgentEvent {
  const id = typeof item["id"] === "string" ? { id: item["id"] } : {};
  const error = item["error"] === null || item["error"] === undefined ? undefined : jsonObject(item["error"]);
  const failed =
    item["status"] === "failed" ||
    item["status"] === "declined" ||
    (typeof item["exitCode"] === "number" && item["exitCode"] !== 0) ||
    item["success"] === false ||
    error !== undefined;
  // A command that printed nothing has no aggregated output: its output is empty, not its status.
  const output =
    (item["type"] === "commandExecution" ? (jsonString(item["aggregatedOutput"]) ?? "") : undefined) ??
    jsonString(error?.["message"]) ??
    (item["result"] === undefined || item["result"] === null ? undefined : JSON.stringify(item["result"])) ??
    (item["contentItems"] === undefined || item["contentItems"] === null ? undefined : JSON.stringify(item["contentItems"])) ??
    jsonString(item["status"]) ??
    "";
  return { type: "tool-result", ...id, output, ...(failed ? { isError: true } : {}) };
}
