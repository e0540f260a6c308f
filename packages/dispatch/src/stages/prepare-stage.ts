import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { throwIfAborted } from "@outpost/core";
import type { DispatchOptions } from "../dispatch-options.js";
import { resolveOptions } from "../options/resolve-options.js";
import { withDefaultProvider } from "../options/default-provider.js";
import { withCustomAgent } from "../agents/with-custom-agent.js";
import { Observers } from "../observe/observers.js";
import { findRepositoryWithIdentity } from "../git/repository.js";
import { resolveBrief } from "../brief/resolve-brief.js";
import { locateContinuation } from "../conversation/continuation.js";
import { reserveStorage, type StorageReservation } from "../quota/storage-quota.js";
import { createActivityLog } from "../activity/activity-log.js";
import { DISPATCH_ID_VARIABLE } from "../activity/activity-record.js";
import { currentProcess } from "@outpost/plugin-utils";
import { assertArgumentsFit } from "../turn/argument-limit.js";
import { agentVariables } from "../turn/agent-variables.js";
import { readEnvFile } from "../turn/env-file.js";
import type { DispatchState } from "./dispatch-state.js";
import { bindSharedWorkspace } from "../workspace/shared-workspace.js";
import { responseInstructions, responseJsonSchema } from "../response/response-instructions.js";
import { DispatchSpans } from "../telemetry/dispatch-telemetry.js";
import { openJournal, secretValues } from "../journal/logging.js";
import { createRedactor, type Redactor } from "../redact/redactor.js";
import { redactedActivity } from "../redact/redacted-activity.js";

/**
 * Stage `prepare`: checks the options, expands the brief, locates a continuation and reserves storage,
 * all before anything is allocated; then opens the activity record. A failure here leaves nothing behind.
 */
export async function prepare(options: DispatchOptions, redactor: Redactor = createRedactor(undefined)): Promise<DispatchState> {
  const started = Date.now();
  const spans = await DispatchSpans.open(
    (options as DispatchOptions | undefined)?.telemetry,
    { "outpost.agent": String((options as DispatchOptions | undefined)?.agent?.name) },
    redactor,
  );
  spans.enter("prepare");
  try {
    return await prepareState(options, started, spans, redactor);
  } catch (error) {
    spans.end(error);
    throw error;
  }
}

async function prepareState(given: DispatchOptions, started: number, spans: DispatchSpans, redactor: Redactor): Promise<DispatchState> {
  const options = withCustomAgent(await withDefaultProvider(given));
  const resolved = resolveOptions(options);
  const { sandboxProvider: provider, signal } = options;
  const agent = resolved.candidates[0]!;
  throwIfAborted(signal, "The dispatch");
  const dispatchId = randomUUID();
  spans.annotate({ "outpost.dispatch.id": dispatchId, ...(options.label ? { "outpost.label": options.label } : {}) });
  const observers = new Observers(options, options.observation, { dispatchId, label: options.label }, redactor);
  if (resolved.timers.idleWarningMs >= resolved.timers.idleMs)
    observers.warn(
      `No idle warning will be emitted: idleWarningMs (${resolved.timers.idleWarningMs}) ` +
        `is not below idleMs (${resolved.timers.idleMs}). Set idleWarningMs below idleMs to be warned before a silent agent is stopped.`,
    );
  // The checkout root, HEAD and the identity git would use where the caller pointed: one host process.
  const { repository, identity } = await findRepositoryWithIdentity(resolved.repository);
  const root = repository.root;
  const [brief, continued, envFile] = await Promise.all([
    resolveBrief({
      // Left out only with a replay agent whose journal holds no turn; resolveBrief refuses it (code configuration).
      brief: options.brief ?? "",
      root,
      expansionMs: resolved.expansionMs,
      signal,
      diagnostic: (message) => observers.diagnostic(message),
    }),
    options.continuation ? locateContinuation(agent, options.continuation.id, root, options.conversationHome) : undefined,
    readEnvFile(root),
  ]);
  // A typed response is asked for in the brief itself: where to put the value, and its JSON Schema when known.
  const prompt = resolved.response
    ? brief + responseInstructions(resolved.response.tag, responseJsonSchema(resolved.response.spec))
    : brief;
  // Every agent process carries the dispatch's id, so `outpost clean` finds its orphans after a crash.
  // Each candidate's variables are checked now, before anything is allocated.
  const variables = new Map(
    resolved.candidates.map((candidate) => [
      candidate,
      { ...agentVariables(candidate, provider, identity, envFile), [DISPATCH_ID_VARIABLE]: dispatchId },
    ]),
  );
  // Credentials among the agent's and the provider's variables (both reach the agent's processes) are redacted
  // from everything the dispatch stores or emits from now on.
  redactor.addCredentials([...variables.values(), provider.variables ?? {}].flatMap((values) => secretValues(values)));
  for (const candidate of resolved.candidates) assertArgumentsFit(candidate, prompt);
  throwIfAborted(signal, "The dispatch");
  // The workspace option serves one dispatch at a time: taken now, released when the dispatch ends.
  const unbind = resolved.shared ? bindSharedWorkspace(resolved.shared, dispatchId) : undefined;
  try {
    const state = await allocate({
      options,
      resolved,
      dispatchId,
      started,
      spans,
      observers,
      repository,
      prompt,
      continued,
      identity,
      variables,
      redactor,
    });
    if (unbind) state.releaseWorkspace = unbind;
    return state;
  } catch (error) {
    unbind?.();
    throw error;
  }
}

type Prepared = Pick<
  DispatchState,
  | "options"
  | "resolved"
  | "dispatchId"
  | "started"
  | "spans"
  | "observers"
  | "repository"
  | "prompt"
  | "continued"
  | "identity"
  | "variables"
  | "redactor"
>;

/** Allocates the dispatch's own host state: staging, storage reservation, activity record and journal. */
async function allocate(prepared: Prepared): Promise<DispatchState> {
  const { options, resolved, dispatchId, started, observers, repository, variables } = prepared;
  const { sandboxProvider: provider, signal } = options;
  const agent = resolved.candidates[0]!;
  const root = repository.root;
  const staging = await mkdtemp(join(tmpdir(), "outpost-staging-"));
  const activity = redactedActivity(createActivityLog(root, dispatchId, options.activityTransport), prepared.redactor);
  // On record from its first folder on: a kill while it waits for the storage lock leaves nothing unnamed.
  await activity
    .start({
      dispatchId,
      label: options.label,
      agent: options.agent.name,
      provider: provider.name,
      repository: root,
      directory: root,
      pid: process.pid,
      runner: currentProcess(),
      startedAt: new Date(started).toISOString(),
      state: "running",
      phase: "prepare",
      mode: resolved.branch.mode,
      staging,
    })
    .catch((error: unknown) => observers.warn(`Could not write the activity record: ${String(error)}.`));
  const reservation: StorageReservation | undefined = options.storageQuota
    ? await reserveStorage(root, { ...options.storageQuota, ...(signal ? { signal } : {}) }, dispatchId, (message) =>
        observers.warn(message),
      ).catch(async (error: unknown) => {
        await Promise.allSettled([rm(staging, { recursive: true, force: true }), activity.remove()]);
        throw error;
      })
    : undefined;
  // The journal is named after the dispatch; credentials among the agent's and the provider's variables
  // (both reach the agent's processes) never reach it.
  const journal = openJournal({
    logging: options.logging,
    root,
    journalId: dispatchId,
    agent: agent.name,
    source: agent.kind === "replay" ? agent.source : "agent",
    secrets: [...variables.values(), provider.variables ?? {}].flatMap((values) => secretValues(values)),
    redactor: prepared.redactor,
  });
  const state: DispatchState = {
    ...prepared,
    agent,
    staging,
    ...(reservation ? { reservation } : {}),
    activity,
    phase: "prepare",
    phaseStarted: started,
    recorded: [],
    conversationId: options.continuation?.id,
    turns: [],
    commits: [],
    cleanupFailed: false,
    ...(journal ? { journal } : {}),
    divergences: [],
  };
  observers.emit({
    type: "dispatch-start",
    dispatchId,
    label: options.label,
    agent: options.agent.name,
    timestamp: new Date().toISOString(),
  });
  return state;
}
