import { spawn } from "node:child_process";
import { OutpostError, type CliProbeTarget, type Command, type CommandResult } from "@outpost/core";

/**
 * Runs a probe on this host as a host-placement run does: this process's environment, the user's home, the
 * agent's variables over them; a deadline stops the whole process group (code `timeout`).
 */
export function hostTarget(directory: string): CliProbeTarget {
  return {
    invoke: (command: Command) =>
      new Promise<CommandResult>((resolve, reject) => {
        const child = spawn(command.executable, [...(command.arguments ?? [])], {
          cwd: command.directory ?? directory,
          env: { ...process.env, ...command.variables },
          stdio: ["ignore", "pipe", "pipe"],
          detached: true,
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-65_536)));
        child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-65_536)));
        const timer =
          command.deadlineMs === undefined
            ? undefined
            : setTimeout(() => {
                stopGroup(child.pid);
                reject(new OutpostError("timeout", `\`${command.executable}\` passed its deadline of ${command.deadlineMs} ms. Raise it.`));
              }, command.deadlineMs);
        child.on("error", (error) => {
          clearTimeout(timer);
          reject(new OutpostError("process", `Could not start ${command.executable}: ${error.message}. Check PATH.`, { cause: error }));
        });
        child.on("close", (status, signal) => {
          clearTimeout(timer);
          resolve({ status: status ?? (signal ? 128 : 1), stdout, stderr });
        });
      }),
  };
}

function stopGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}
