import { OutpostError } from "@outpost/core";
import type { DiffGuard, Watchdog } from "@outpost/dispatch";

/** A plugin chosen by the name its descriptor declares, with plain-data options. */
export interface PluginChoice {
  readonly name: string;
  readonly options?: Readonly<Record<string, JsonValue>>;
}

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * One dispatch as queue data: everything a worker on another machine needs, and nothing it must not get.
 * No functions, no credentials: a worker adds its own keys (see `DispatchWorkerOptions.agentDefaults`).
 */
export interface DispatchJob {
  /** The brief text (brief files live in the repository: `{ file }` is read from the worker's checkout). */
  readonly brief: string | { readonly text: string } | { readonly file: string; readonly variables?: Readonly<Record<string, string>> };
  readonly label?: string;
  /** Agent descriptor name (e.g. `claude`) with its factory options (`model`, `endpoint.baseUrl`…). */
  readonly agent: PluginChoice;
  /** Sandbox provider descriptor name (e.g. `docker`, `local`) with the options the descriptor declares. */
  readonly provider: PluginChoice;
  readonly repository: {
    /** A git remote URL the worker can clone, fetch and push. */
    readonly url: string;
    /** What the work starts from on the remote; default the remote's default branch. */
    readonly base?: string;
    /**
     * The branch the agent's commits are published on; default `outpost/queue/<job id>`. Only ever moved
     * forward (a publication that would drop commits fails with `conflict`); one job at a time per branch.
     */
    readonly branch?: string;
    /** Allows publishing on the remote's default branch or a branch a worker protects (`main`, `release/*`…). */
    readonly publishProtected?: boolean;
  };
  /** Name of the worker transport that stores the result, journal and conversation; default `results`. */
  readonly transport?: string;
  readonly passes?: number;
  readonly model?: string;
  readonly idleMs?: number;
  readonly deadlineMs?: number;
  readonly until?: string | readonly string[];
  /**
   * Continue the conversation stored by an earlier, completed job of this queue (on whichever worker ran it):
   * the work starts from that job's branch (unless `repository.base` is given) and is published on it (unless
   * `repository.branch` is given). `fork: true` continues a copy of the conversation.
   */
  readonly continuation?: { readonly job: string; readonly fork?: boolean };
  /** `guard` of dispatch(): protected paths and size bounds; a violation fails the job with code `guard` (not retried). */
  readonly guard?: DiffGuard;
  /** `watchdog` of dispatch(), `stop` or `warn` (a queued job has no steering): a stuck agent fails with code `stuck`. */
  readonly watchdog?: Omit<Watchdog, "action" | "message"> & { readonly action?: "stop" | "warn" };
  /** A second enqueue with the same key is a no-op. Letters, digits, `.`, `_` and `-`, at most 128. */
  readonly idempotencyKey?: string;
}

const TOP_LEVEL = new Set([
  "brief",
  "label",
  "agent",
  "provider",
  "repository",
  "transport",
  "passes",
  "model",
  "idleMs",
  "deadlineMs",
  "until",
  "continuation",
  "idempotencyKey",
  "guard",
  "watchdog",
]);
// Option names that carry secrets: a worker supplies those from its own environment, never the queue.
const SECRET_NAME = /key|token|secret|password|credential|authorization|cookie/i;
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9._-]{1,128}$/;
// What git accepts as a branch name, narrowed: no leading '-' or '.', no '..', '//', '/.', trailing '/' or '.lock'.
const BRANCH = /^(?![-./])(?!.*\.\.)(?!.*\/\/)(?!.*\/[.-])(?!.*\/$)(?!.*\.lock$)[A-Za-z0-9._/-]{1,200}$/;

function refuse(message: string, path: string): never {
  throw new OutpostError("configuration", `Dispatch job: ${path} ${message}`, { details: { field: path } });
}

/** Checks untyped data is a DispatchJob that survives JSON unchanged; code `configuration` naming the field otherwise. */
export function assertDispatchJob(value: unknown): asserts value is DispatchJob {
  if (!isPlainObject(value)) refuse("must be a plain object.", "job");
  for (const key of Object.keys(value)) if (!TOP_LEVEL.has(key)) refuse(`is not a job field (known: ${[...TOP_LEVEL].join(", ")}).`, key);
  assertJsonData(value, "job");
  assertBrief(value.brief);
  for (const field of ["agent", "provider"] as const) assertChoice(value[field], field);
  assertRepository(value.repository);
  optionalString(value, "label");
  optionalString(value, "model");
  if (value.transport !== undefined && (typeof value.transport !== "string" || !NAME.test(value.transport)))
    refuse("must be the name of a transport the workers have.", "transport");
  for (const field of ["passes", "idleMs", "deadlineMs"] as const) {
    const number = value[field];
    if (number !== undefined && (typeof number !== "number" || !Number.isInteger(number) || number < 1))
      refuse("must be a positive integer.", field);
  }
  const until = value.until;
  if (until !== undefined && typeof until !== "string" && !(Array.isArray(until) && until.every((marker) => typeof marker === "string")))
    refuse("must be a marker or a list of markers.", "until");
  const continuation = value.continuation;
  if (continuation !== undefined) {
    if (!isPlainObject(continuation) || typeof continuation.job !== "string" || continuation.job === "")
      refuse('must be { job: "<id of the finished job>" }.', "continuation");
    if (continuation.fork !== undefined && typeof continuation.fork !== "boolean") refuse("must be a boolean.", "continuation.fork");
  }
  // Their fields are checked by dispatch() itself on the worker (code configuration, not retried).
  for (const field of ["guard", "watchdog"] as const)
    if (value[field] !== undefined && !isPlainObject(value[field])) refuse("must be a plain object.", field);
  if (
    isPlainObject(value.watchdog) &&
    value.watchdog.action !== undefined &&
    value.watchdog.action !== "stop" &&
    value.watchdog.action !== "warn"
  )
    refuse('must be "stop" or "warn": a queued job has no steering.', "watchdog.action");
  const key = value.idempotencyKey;
  if (key !== undefined && (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key)))
    refuse("must be 1 to 128 letters, digits, '.', '_' or '-'.", "idempotencyKey");
}

function assertBrief(brief: unknown): void {
  if (typeof brief === "string") {
    if (brief.trim() === "") refuse("is empty.", "brief");
    return;
  }
  if (isPlainObject(brief) && typeof brief.text === "string" && brief.text.trim() !== "") return;
  if (isPlainObject(brief) && typeof brief.file === "string" && brief.file !== "") return;
  refuse("must be text, { text } or { file, variables? }.", "brief");
}

function assertChoice(choice: unknown, path: string): void {
  if (!isPlainObject(choice) || typeof choice.name !== "string" || !NAME.test(choice.name))
    refuse(`must be { name: "<descriptor name>", options? }.`, path);
  for (const key of Object.keys(choice))
    if (key !== "name" && key !== "options") refuse("is not a field of a plugin choice.", `${path}.${key}`);
  if (choice.options !== undefined) {
    if (!isPlainObject(choice.options)) refuse("must be a plain object.", `${path}.options`);
    assertNoSecrets(choice.options, `${path}.options`);
  }
}

function assertRepository(repository: unknown): void {
  if (!isPlainObject(repository) || typeof repository.url !== "string" || repository.url.trim() === "")
    refuse('must be { url: "<git remote URL>", base?, branch?, publishProtected? }.', "repository");
  for (const key of Object.keys(repository))
    if (!["url", "base", "branch", "publishProtected"].includes(key)) refuse("is not a repository field.", `repository.${key}`);
  if (repository.publishProtected !== undefined && typeof repository.publishProtected !== "boolean")
    refuse("must be true or false.", "repository.publishProtected");
  // Credentials in a URL (https://user:token@host/…) would be stored in Redis for anyone who reads the queue.
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(repository.url))
    refuse("carries credentials; give the workers a credential helper or an SSH key instead.", "repository.url");
  if (repository.url.startsWith("-")) refuse("must not start with '-'.", "repository.url");
  for (const field of ["base", "branch"] as const) {
    const name = repository[field];
    if (name !== undefined && (typeof name !== "string" || !BRANCH.test(name)))
      refuse("must be a valid branch name.", `repository.${field}`);
  }
}

function assertNoSecrets(options: Record<string, unknown>, path: string): void {
  for (const [key, inner] of Object.entries(options)) {
    if (SECRET_NAME.test(key))
      refuse("looks like a credential; jobs never carry credentials: set it on the workers (agentDefaults).", `${path}.${key}`);
    if (isPlainObject(inner)) assertNoSecrets(inner, `${path}.${key}`);
  }
}

function assertJsonData(value: unknown, path: string): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) refuse("must be a finite number.", path);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((inner, index) => assertJsonData(inner, `${path}[${index}]`));
    return;
  }
  if (isPlainObject(value)) {
    for (const [key, inner] of Object.entries(value))
      if (inner !== undefined) assertJsonData(inner, path === "job" ? key : `${path}.${key}`);
    return;
  }
  refuse(`is a ${typeof value === "function" ? "function" : "value JSON cannot carry"}; jobs are plain data.`, path);
}

function optionalString(value: Record<string, unknown>, field: string): void {
  if (value[field] !== undefined && typeof value[field] !== "string") refuse("must be a string.", field);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
