import { randomUUID } from "node:crypto";
import type { ModelRequest } from "./model-request.js";
import { DEFAULT_USAGE, isErrorStep, isToolCallStep, type ModelReply, type ScriptStep } from "./script-step.js";

/** A tool-call step named no tool the request offers: answered 400 so the CLI fails visibly. */
export class ToolMismatch extends Error {
  constructor(
    readonly wanted: readonly string[],
    readonly offered: readonly string[],
  ) {
    super(`model server: script wants tool ${wanted.join(" | ")}, the request offers ${offered.join(", ") || "no tools"}`);
  }
}

/** Function steps can return function steps; this bound stops a responder that never settles on a reply. */
const MAX_FUNCTION_DEPTH = 8;

/** Turns a script step into a concrete reply for this request. Returns the delay to wait first. */
export async function resolveStep(step: ScriptStep, request: ModelRequest): Promise<{ reply: ModelReply; delayMs: number }> {
  let current = step;
  for (let depth = 0; typeof current === "function"; depth++) {
    if (depth >= MAX_FUNCTION_DEPTH) throw new Error("model server: a step function kept returning functions");
    current = await current(request);
  }
  const delayMs = current.delayMs ?? 0;
  if (isErrorStep(current)) {
    const { status, message, body, headers } = current.error;
    return { delayMs, reply: { kind: "error", status, message: message ?? defaultErrorMessage(status), body, headers } };
  }
  const usage = current.usage ?? DEFAULT_USAGE;
  if (isToolCallStep(current)) {
    const wanted = current.toolCall.names ?? (current.toolCall.name === undefined ? [] : [current.toolCall.name]);
    const tool = wanted.map((name) => request.tools.find((offered) => offered.name === name)).find((found) => found);
    if (!tool)
      throw new ToolMismatch(
        wanted,
        request.tools.map((offered) => offered.name),
      );
    const raw = current.toolCall.arguments;
    const args = typeof raw === "function" ? raw(tool.name, request) : raw;
    const id = current.toolCall.id ?? `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
    return {
      delayMs,
      reply: {
        kind: "message",
        text: current.text,
        toolCall: { id, name: tool.name, arguments: args, custom: tool.kind === "custom" },
        usage,
      },
    };
  }
  return { delayMs, reply: { kind: "message", text: current.text, usage } };
}

function defaultErrorMessage(status: number): string {
  if (status === 429) return "Rate limit reached: quota exceeded for this key (scripted).";
  if (status === 529) return "Overloaded (scripted).";
  if (status >= 500) return "The service is temporarily unavailable (scripted).";
  return `Scripted error ${status}.`;
}
