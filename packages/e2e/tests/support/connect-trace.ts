import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { AgentAdapter, AgentTurn } from "@outpost/core";

/** Whether `strace` can trace a child here (it is absent from minimal images; ptrace may be forbidden). */
export function straceAvailable(): boolean {
  try {
    execFileSync("strace", ["-f", "-qq", "-e", "trace=connect", "-o", "/dev/null", "--", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * The same agent, its CLI run under `strace -f -e trace=connect`, so a test can prove which addresses the CLI
 * and every process it started tried to reach. Host-placement leases only (strace runs on the host).
 */
export function traceConnections(agent: AgentAdapter, log: string): AgentAdapter {
  return {
    ...agent,
    command(turn: AgentTurn) {
      const command = agent.command(turn);
      return {
        ...command,
        executable: "strace",
        arguments: ["-f", "-qq", "-e", "trace=connect", "-o", log, "--", command.executable, ...(command.arguments ?? [])],
      };
    },
  };
}

/** Internet-family destinations in a connect trace that are not loopback, e.g. `203.0.113.80:443`. */
export function nonLoopbackConnections(log: string): string[] {
  return connections(log).filter(
    (address) => !address.startsWith("127.") && !address.startsWith("[::1]") && !address.startsWith("[::ffff:127."),
  );
}

/** Every internet-family destination in a connect trace, as `address:port` (`[v6]:port`). */
export function connections(log: string): string[] {
  const found: string[] = [];
  for (const line of readFileSync(log, "utf8").split("\n")) {
    const inet = /sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)/.exec(line);
    if (inet) found.push(`${inet[2]}:${inet[1]}`);
    const inet6 = /sa_family=AF_INET6, sin6_port=htons\((\d+)\),.*inet_pton\(AF_INET6, "([^"]+)"/.exec(line);
    if (inet6) found.push(`[${inet6[2]}]:${inet6[1]}`);
  }
  return found;
}
