import type { Command, CommandResult } from "../sandbox/command.js";
import { OutpostError } from "../errors/outpost-error.js";
import { cliProbeBudgetMs } from "./cli-probe-budget.js";
import { parseCliVersion } from "./cli-version.js";

/** Where the CLI runs: a lease, or anything that runs a command the way a lease would. */
export interface CliProbeTarget {
  invoke(command: Command): Promise<CommandResult>;
}

export interface CliProbeRequest {
  /** The executable the agent runs (a name looked up on the PATH its variables give, or a path). */
  readonly executable: string;
  /** The variables of the agent's command: the probe runs with them (PATH, and e.g. COPILOT_AUTO_UPDATE). */
  readonly variables?: Readonly<Record<string, string>>;
  /** Default: `cliProbeBudgetMs()`, which scales with the machine's load and the target's own speed. */
  readonly budgetMs?: number;
  readonly signal?: AbortSignal;
}

/** What the probe learned: a version, or why not (`missing`, `timeout`, `unreadable`). */
export interface CliVersionProbe {
  readonly version?: string;
  readonly outcome: "known" | "missing" | "timeout" | "unreadable";
  readonly problem?: string;
  /** `path dev:inode:size:mtime` of the resolved executable, when found. */
  readonly identity?: string;
}

// Resolves the executable as the agent's command would (same PATH) and names the file it is.
const IDENTITY_SCRIPT =
  'p=$(command -v -- "$1") || { echo "missing"; exit 0; }; case $p in /*) ;; *) echo "builtin $p"; exit 0;; esac; ' +
  'r=$(readlink -f -- "$p" 2>/dev/null) || r=$p; echo "file $r $(stat -L -c %d:%i:%s:%Y -- "$r" 2>/dev/null)"';

const perTarget = new WeakMap<object, Map<string, Promise<CliVersionProbe>>>();
const byIdentity = new Map<string, CliVersionProbe>();

/**
 * `<executable> --version` where the agent will run, with its variables: once per target and executable,
 * and once per executable identity (the same file answers the same), bounded by a budget. When the budget
 * runs out or nothing is printed, the version is unknown (never guessed).
 */
export function probeCliVersion(target: CliProbeTarget, request: CliProbeRequest): Promise<CliVersionProbe> {
  const variables = request.variables ?? {};
  const key = JSON.stringify([request.executable, sortedEntries(variables)]);
  let probes = perTarget.get(target);
  if (!probes) perTarget.set(target, (probes = new Map()));
  const known = probes.get(key);
  if (known) return known;
  const probe = probeOnce(target, request, variables, key);
  probes.set(key, probe);
  // A probe that failed for a reason of its own (aborted) is asked again next time.
  probe.catch(() => probes.delete(key));
  return probe;
}

async function probeOnce(
  target: CliProbeTarget,
  request: CliProbeRequest,
  variables: Readonly<Record<string, string>>,
  key: string,
): Promise<CliVersionProbe> {
  const started = Date.now();
  // A sandbox without a POSIX shell (a distroless image) still answers --version: only the identity is lost.
  const found = await target
    .invoke({
      executable: "sh",
      arguments: ["-c", IDENTITY_SCRIPT, "sh", request.executable],
      variables,
      deadlineMs: request.budgetMs ?? cliProbeBudgetMs(),
      ...(request.signal ? { signal: request.signal } : {}),
    })
    .catch((error: unknown) => {
      if (OutpostError.isInstance(error) && error.code === "aborted") throw error;
      return undefined;
    });
  const line = found?.stdout.trim().split("\n").pop() ?? "";
  if (line === "missing") return { outcome: "missing", problem: `\`${request.executable}\` is not on the PATH where the agent runs` };
  // Without a full identity (no stat), the file cannot be told from another: only this target's cache holds.
  const identity = line.startsWith("file ") && / \d+:\d+:\d+:\d+$/.test(line) ? line.slice(5) : undefined;
  const cacheKey = `${identity} ${key}`;
  const cached = identity === undefined ? undefined : byIdentity.get(cacheKey);
  if (cached) return cached;
  const budgetMs = request.budgetMs ?? cliProbeBudgetMs(Date.now() - started);
  const probe = await askVersion(target, request, variables, budgetMs);
  const result = identity === undefined ? probe : { ...probe, identity };
  // Only a version is kept across targets: a timeout may be the load of the moment.
  if (identity !== undefined && probe.outcome === "known") byIdentity.set(cacheKey, result);
  return result;
}

async function askVersion(
  target: CliProbeTarget,
  request: CliProbeRequest,
  variables: Readonly<Record<string, string>>,
  budgetMs: number,
): Promise<CliVersionProbe> {
  const command = `\`${request.executable} --version\``;
  try {
    const result = await target.invoke({
      executable: request.executable,
      arguments: ["--version"],
      variables: { ...variables, NO_COLOR: "1" },
      deadlineMs: budgetMs,
      retain: 64 * 1024,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const version = parseCliVersion(`${result.stdout}\n${result.stderr}`);
    if (version) return { version, outcome: "known" };
    return { outcome: "unreadable", problem: `${command} printed no version (exit ${result.status})` };
  } catch (error) {
    if (OutpostError.isInstance(error) && error.code === "timeout")
      return { outcome: "timeout", problem: `${command} did not answer within ${Math.round(budgetMs / 1000)} s` };
    if (OutpostError.isInstance(error) && error.code === "aborted") throw error;
    return { outcome: "unreadable", problem: `${command}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function sortedEntries(variables: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(variables).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
}
