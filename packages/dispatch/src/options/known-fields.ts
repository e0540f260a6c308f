import type { DispatchOptions } from "../dispatch-options.js";
import type { StageLimits } from "./stage-limits.js";
import type { StorageQuota } from "../quota/storage-quota.js";
import type { BootstrapOptions } from "../bootstrap/bootstrap-options.js";
import type { Logging } from "../journal/logging.js";
import type { ResponseSpec } from "../response/response-spec.js";
import type { DispatchTelemetry } from "../telemetry/dispatch-telemetry.js";
import type { LifecycleHooks } from "../hooks/lifecycle-hooks.js";
import type { DiffGuard } from "../guard/diff-guard.js";
import type { Pricing } from "../cost/pricing.js";
import type { Watchdog } from "../watchdog/watchdog-options.js";
import type { Redaction } from "../redact/redact-options.js";

// Each list is checked against its type: a field added to the type and not here fails the build, so the
// refusal of unknown fields never refuses a real one.
type Fields<T> = Record<keyof T, true>;

export const DISPATCH_FIELDS = {
  agent: true,
  logging: true,
  brief: true,
  label: true,
  model: true,
  passes: true,
  until: true,
  idleMs: true,
  idleWarningMs: true,
  settleMs: true,
  deadlineMs: true,
  expansionMs: true,
  signal: true,
  continuation: true,
  steering: true,
  observe: true,
  warn: true,
  diagnostic: true,
  workspace: true,
  hooks: true,
  storageQuota: true,
  repository: true,
  branch: true,
  copies: true,
  includeUncommitted: true,
  limits: true,
  bootstrap: true,
  sandboxProvider: true,
  conversationHome: true,
  requireConversation: true,
  recoveryTransport: true,
  activityTransport: true,
  response: true,
  observation: true,
  telemetry: true,
  guard: true,
  pricing: true,
  watchdog: true,
  redact: true,
} as const satisfies Fields<DispatchOptions>;

/** The fields of each object-valued option that takes a fixed set. */
export const NESTED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  continuation: keys({ id: true, fork: true } satisfies Fields<NonNullable<DispatchOptions["continuation"]>>),
  limits: keys({
    copyMs: true,
    gitMs: true,
    collectMs: true,
    mergeMs: true,
    bundleBytes: true,
    syncBackBytes: true,
    syncBackFiles: true,
  } satisfies Fields<StageLimits>),
  storageQuota: keys({ maxBytes: true, reserveBytes: true, maxEntries: true, reserveEntries: true } satisfies Fields<StorageQuota>),
  bootstrap: keys({ registry: true, sources: true } satisfies Fields<BootstrapOptions>),
  logging: keys({
    transport: true,
    verbose: true,
    replayable: true,
    maxPatchBytes: true,
    signingKey: true,
  } satisfies Fields<Exclude<Logging, false | "stdout">>),
  response: keys({ tag: true, schema: true, repairs: true, jsonSchema: true } satisfies Fields<ResponseSpec<unknown>>),
  telemetry: keys({ tracer: true, attributes: true } satisfies Fields<DispatchTelemetry>),
  hooks: keys({ workspaceReady: true, hostReady: true, sandboxReady: true } satisfies Fields<LifecycleHooks>),
  guard: keys({ protectedPaths: true, maxChangedLines: true, maxChangedFiles: true } satisfies Fields<DiffGuard>),
  pricing: keys({ models: true, budgetUsd: true, ledger: true } satisfies Fields<Pricing>),
  watchdog: keys({ repeatedToolCalls: true, repeatedTexts: true, silenceMs: true, action: true, message: true } satisfies Fields<Watchdog>),
  redact: keys({ patterns: true, values: true, conversations: true } satisfies Fields<Redaction>),
};

/** A branch policy's fields by mode (`from` is the page's name for a named branch's `base`). */
export const BRANCH_FIELDS: Readonly<Record<string, readonly string[]>> = {
  current: ["mode"],
  named: ["mode", "name", "base", "from"],
  integrate: ["mode", "name", "target"],
};

function keys(fields: object): readonly string[] {
  return Object.keys(fields);
}
