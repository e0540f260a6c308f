/** A preparation command: shell text (run with `sh -c`) or an executable with arguments. */
export type HookCommand =
  | string
  | {
      readonly executable: string;
      readonly arguments?: readonly string[];
      readonly variables?: Readonly<Record<string, string>>;
      /** Default 600,000 (10 minutes). */
      readonly deadlineMs?: number;
    };

/**
 * Preparation commands, each of which must exit 0 before its deadline:
 * workspaceReady on the host once a new worktree exists, then hostReady (host, in order) and
 * sandboxReady (sandbox, all together) in parallel.
 */
export interface LifecycleHooks {
  readonly workspaceReady?: readonly HookCommand[];
  readonly hostReady?: readonly HookCommand[];
  readonly sandboxReady?: readonly HookCommand[];
}

export const DEFAULT_HOOK_DEADLINE_MS = 600_000;

/** The executable, arguments and deadline a hook runs with. */
export function hookInvocation(hook: HookCommand): {
  executable: string;
  arguments: string[];
  variables: Readonly<Record<string, string>>;
  deadlineMs: number;
  text: string;
} {
  if (typeof hook === "string") {
    return { executable: "sh", arguments: ["-c", hook], variables: {}, deadlineMs: DEFAULT_HOOK_DEADLINE_MS, text: hook };
  }
  return {
    executable: hook.executable,
    arguments: [...(hook.arguments ?? [])],
    variables: hook.variables ?? {},
    deadlineMs: hook.deadlineMs ?? DEFAULT_HOOK_DEADLINE_MS,
    text: [hook.executable, ...(hook.arguments ?? [])].join(" "),
  };
}
