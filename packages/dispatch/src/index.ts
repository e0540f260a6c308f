export { dispatch } from "./dispatch.js";
export type { DispatchOptions, DispatchResult, DispatchTurn, DispatchRecovery } from "./dispatch-options.js";
export { DISPATCH_DEFAULTS } from "./options/resolve-options.js";

export type { Brief } from "./brief/brief.js";
export { MAX_BRIEF_BYTES } from "./brief/brief.js";
export type { BranchPolicy, BranchMode } from "./workspace/branch-policy.js";
export type { LifecycleHooks, HookCommand } from "./hooks/lifecycle-hooks.js";
export { DEFAULT_HOOK_DEADLINE_MS } from "./hooks/lifecycle-hooks.js";
export type { StorageQuota } from "./quota/storage-quota.js";
export type { AgentObservation, ObserverError } from "./observe/observers.js";
export type { ActivityRecord } from "./activity/activity-record.js";
export { activityKey } from "./activity/activity-record.js";
export { DEFAULT_MARKER } from "./turn/markers.js";
export { findRepository } from "./git/repository.js";
export type { Repository } from "./git/repository.js";
