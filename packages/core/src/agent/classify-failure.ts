import type { FailureClassification } from "./agent-event.js";
import type { FailureRule } from "./agent-adapter.js";

/** The first rule matching the text, or undefined. */
export function classifyFailure(
  rules: readonly FailureRule[],
  text: string,
): { readonly classification: FailureClassification; readonly rule: FailureRule } | undefined {
  for (const rule of rules) {
    rule.pattern.lastIndex = 0;
    if (rule.pattern.test(text)) return { classification: rule.classification, rule };
  }
  return undefined;
}
