import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { AgentAdapter, SandboxProvider } from "@outpost/core";
import { dispatch, type DispatchResult } from "@outpost/dispatch";
import type { ModelServer } from "@outpost/testkit/model-server";

/** One turn of a journey: its brief, the checkout it runs in and the provider that runs it. */
export interface JourneyStep {
  readonly brief: string;
  readonly repository: string;
  readonly provider: SandboxProvider;
  /** Runs before the step: what happens to the home between two turns. */
  readonly before?: () => void | Promise<void>;
  /** Checks the step's result further. */
  readonly after?: (result: DispatchResult) => void | Promise<void>;
}

/**
 * Runs a first turn and continues the conversation through `steps`, all on the user's own home, and checks
 * after each that the model saw every earlier prompt and the stored conversation holds them all: a capture
 * that took another workspace's copy, or a restore that continued a stale one, loses a turn here.
 * Returns the conversation id and the warnings the dispatches gave.
 */
export async function runHomeJourney(options: {
  readonly agent: AgentAdapter;
  readonly server: ModelServer;
  readonly first: JourneyStep;
  readonly steps: readonly JourneyStep[];
  readonly conversationHome?: string;
  /** Called with the conversation id once the first turn named it. */
  readonly onFirst?: (id: string) => void;
}): Promise<{ id: string; warnings: string[] }> {
  const warnings: string[] = [];
  const turn = (step: JourneyStep, id?: string): Promise<DispatchResult> =>
    dispatch({
      agent: options.agent,
      brief: step.brief,
      repository: step.repository,
      sandboxProvider: step.provider,
      until: [],
      requireConversation: true,
      warn: (message) => warnings.push(message),
      ...(options.conversationHome ? { conversationHome: options.conversationHome } : {}),
      ...(id ? { continuation: { id } } : {}),
    });
  const first = await turn(options.first);
  const id = first.conversationId!;
  expect(id).toBeTruthy();
  options.onFirst?.(id);
  const prompts = [options.first.brief];
  for (const step of options.steps) {
    await step.before?.();
    const result = await turn(step, id);
    expect(result.conversationId, step.brief).toBe(id);
    expect(result.text, step.brief).toContain("history_has_turn1=true");
    const request = options.server.requests.filter((logged) => logged.kind === "turn").at(-1)!;
    for (const earlier of prompts) expect(request.body, `${step.brief} sees "${earlier}"`).toContain(earlier);
    prompts.push(step.brief);
    const stored = readFileSync(result.conversation!.file, "utf8");
    for (const prompt of prompts) expect(stored, `stored after "${step.brief}"`).toContain(prompt);
    await step.after?.(result);
  }
  expect(warnings.filter((message) => /remove|stale/i.test(message))).toEqual([]);
  expect(options.server.problems).toEqual([]);
  return { id, warnings };
}
