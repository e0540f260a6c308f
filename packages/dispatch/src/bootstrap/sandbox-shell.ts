import { OutpostError, tailLines, type CommandResult, type SandboxLease } from "@outpost/core";

/** Runs a fixed POSIX shell script in the sandbox; values travel as positional arguments, never in the script text. */
export function sandboxShell(
  lease: SandboxLease,
  script: string,
  args: readonly string[],
  options: { readonly signal?: AbortSignal; readonly variables?: Readonly<Record<string, string>>; readonly deadlineMs?: number } = {},
): Promise<CommandResult> {
  return lease.invoke({
    executable: "sh",
    arguments: ["-c", script, "sh", ...args],
    directory: lease.home,
    ...(options.variables ? { variables: options.variables } : {}),
    signal: options.signal,
    deadlineMs: options.deadlineMs ?? 120_000,
    retain: 64 * 1024,
  });
}

/** The sandbox's error output (hostile text: only shown, trimmed), for messages. */
export function tail(result: CommandResult): string {
  return tailLines(result.stderr || result.stdout, 800) || "no output";
}

export function bootstrapFailure(code: "process" | "provider" | "configuration", message: string, status?: number): OutpostError {
  return new OutpostError(code, message, status === undefined ? {} : { details: { status } });
}
