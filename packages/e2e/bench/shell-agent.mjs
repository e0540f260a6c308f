// An agent that starts no runtime of its own: one shell line that commits a file and prints two JSON lines.
// Loaded by `outpost run --agent-module` and by fresh-dispatch.mjs in the fresh-process benchmark.
const LINE = [
  'printf "%s\\n" "$SHELL_AGENT_FILE" > "$SHELL_AGENT_FILE"',
  'git add "$SHELL_AGENT_FILE"',
  "git commit -q -m shell",
  `printf '%s\\n' '{"type":"text","text":"<outpost>done</outpost>"}' '{"type":"finished"}'`,
].join(" && ");

export function createAgent() {
  const file = process.env.SHELL_AGENT_FILE ?? "shell.txt";
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "shell-agent",
    executable: "sh",
    requiresFinishedEvent: true,
    usage: "unavailable",
    resumable: false,
    forkable: false,
    command: () => ({ executable: "sh", arguments: ["-c", LINE], variables: { SHELL_AGENT_FILE: file } }),
    createDecoder: () => ({
      decode: (line) => {
        try {
          return [JSON.parse(line)];
        } catch {
          return [{ type: "raw", line }];
        }
      },
    }),
  };
}

/** The same work as a shell command, for the floor. */
export const SHELL_AGENT_LINE = LINE;
