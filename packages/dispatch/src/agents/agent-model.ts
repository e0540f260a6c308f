import { OutpostError } from "@outpost/core";

/** A model for `createAgent()`: its name, or the name with settings. */
export type AgentModel =
  | string
  | {
      readonly name: string;
      /** Reasoning effort, where the harness takes one. */
      readonly reasoning?: "low" | "medium" | "high";
      /** Largest answer, in tokens, where the harness takes a limit. */
      readonly maxOutputTokens?: number;
    };

const REASONING = ["low", "medium", "high"] as const;

/** A checked model: its name and the settings given besides it. */
export interface CheckedModel {
  readonly name: string;
  readonly reasoning?: "low" | "medium" | "high";
  readonly maxOutputTokens?: number;
}

/**
 * Checks a model when the agent is composed, not at its first turn: a typo fails before any sandbox exists.
 * A setting the harness's factory does not apply (its descriptor's `modelSettings`) is refused rather than
 * ignored, unless the agent has its own request(), which receives the model and applies what it can.
 */
export function checkModel(
  model: AgentModel | undefined,
  harness: string,
  applied: readonly string[],
  ownRequest = false,
): CheckedModel | undefined {
  if (model === undefined) return undefined;
  const given = typeof model === "string" ? { name: model } : model;
  if (typeof given !== "object" || given === null || typeof given.name !== "string" || given.name.trim() === "")
    throw new OutpostError(
      "configuration",
      `createAgent(): model must be a model name or { name, reasoning?, maxOutputTokens? } with a non-empty name.`,
    );
  const { name, reasoning, maxOutputTokens, ...unknown } = given as Exclude<AgentModel, string> & Record<string, unknown>;
  const extra = Object.keys(unknown);
  if (extra.length > 0)
    throw new OutpostError(
      "configuration",
      `createAgent(): model has unknown field(s) ${extra.join(", ")}; it takes name, reasoning and maxOutputTokens.`,
    );
  if (reasoning !== undefined && !REASONING.includes(reasoning))
    throw new OutpostError(
      "configuration",
      `createAgent(): model.reasoning must be one of ${REASONING.join(", ")}, not ${JSON.stringify(reasoning)}.`,
    );
  if (maxOutputTokens !== undefined && (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1))
    throw new OutpostError(
      "configuration",
      `createAgent(): model.maxOutputTokens must be a positive integer, not ${String(maxOutputTokens)}.`,
    );
  const settings = [...(reasoning !== undefined ? ["reasoning"] : []), ...(maxOutputTokens !== undefined ? ["maxOutputTokens"] : [])];
  const unapplied = settings.filter((setting) => !applied.includes(setting));
  if (unapplied.length > 0 && !ownRequest)
    throw new OutpostError(
      "configuration",
      `createAgent(): the ${harness} harness cannot apply ${unapplied.join(" and ")} (it applies ${applied.join(", ") || "no setting besides the name"}). ` +
        `Leave ${unapplied.length > 1 ? "them" : "it"} out, or give request() and apply ${unapplied.length > 1 ? "them" : "it"} there.`,
      { details: { harness, settings: unapplied } },
    );
  return { name, ...(reasoning !== undefined ? { reasoning } : {}), ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}) };
}
