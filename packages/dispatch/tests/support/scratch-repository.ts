import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentAdapter, AgentEvent } from "@outpost/core";

/** A fresh git repository with one commit on main, under its own temporary directory. */
export function scratchRepository(prefix: string): string {
  const repository = mkdtempSync(join(tmpdir(), prefix));
  execFileSync("git", ["init", "-q", "-b", "main", repository]);
  writeFileSync(join(repository, "README.md"), "seed\n");
  execFileSync("git", ["-C", repository, "add", "README.md"]);
  execFileSync("git", ["-C", repository, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "seed"]);
  return repository;
}

/** An agent whose answer is its prompt: what dispatch() handed it, as one JSON `finished` event. */
export function echoAgent(): AgentAdapter {
  const program = "process.stdout.write(JSON.stringify({ type: 'finished', text: process.argv[1] }) + '\\n')";
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "echo",
    executable: process.execPath,
    command: (turn) => ({ executable: process.execPath, arguments: ["-e", program, turn.prompt], variables: {} }),
    createDecoder: () => ({ decode: (line) => [JSON.parse(line) as AgentEvent] }),
  };
}
