import { spawn } from "node:child_process";
import { OutpostError, type CliProbeTarget, type Command, type CommandResult } from "../../src/index.js";

/** Runs commands on this host the way a lease does: variables over the environment, deadline as code `timeout`. */
export function hostTarget(): CliProbeTarget & { readonly runs: string[] } {
  const runs: string[] = [];
  return {
    runs,
    invoke: (command: Command) =>
      new Promise<CommandResult>((resolve, reject) => {
        runs.push([command.executable, ...(command.arguments ?? [])].join(" "));
        const child = spawn(command.executable, [...(command.arguments ?? [])], {
          env: { ...process.env, ...command.variables },
          stdio: ["ignore", "pipe", "pipe"],
          detached: true,
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        const timer =
          command.deadlineMs === undefined
            ? undefined
            : setTimeout(() => {
                process.kill(-child.pid!, "SIGKILL");
                reject(new OutpostError("timeout", `${command.executable} passed its deadline. Raise it.`));
              }, command.deadlineMs);
        child.on("error", (error) => reject(new OutpostError("process", `Could not start: ${error.message}. Check PATH.`)));
        child.on("close", (status) => {
          clearTimeout(timer);
          resolve({ status: status ?? 1, stdout, stderr });
        });
      }),
  };
}
