import type { ModelRequest, Responder } from "@outpost/testkit/model-server";

export const TURN1_MARKER = "MARKER_TURN1_DONE";

// The shell tools of the pinned CLIs: claude Bash, codex exec_command/shell_command/shell, copilot and opencode
// bash, gemini run_shell_command.
const SHELL_TOOLS = ["Bash", "exec_command", "shell_command", "shell", "bash", "run_shell_command"];

/**
 * A turn that commits, for any agent: the prompt names `FILE=<name>`; the model writes and commits that file
 * with one shell call, then answers. A prompt containing `TURN2` is a continuation: the answer says whether the
 * history sent with it holds turn 1's marker.
 */
export function commitResponder(): Responder {
  return (request) => {
    const file = /FILE=([\w.-]+)/.exec(request.prompt)?.[1];
    if (request.afterToolResult || file === undefined || request.tools.length === 0) {
      const text = request.prompt.includes("TURN2")
        ? `MARKER_TURN2_DONE history_has_turn1=${request.transcript.includes(TURN1_MARKER)}`
        : TURN1_MARKER;
      return { text: `Committed ${file ?? "nothing"}. ${text} <outpost>done</outpost>` };
    }
    const command = `printf 'from %s\\n' ${file} > ${file} && git add ${file} && git commit -q -m 'Add ${file}'`;
    return { toolCall: { names: SHELL_TOOLS, arguments: (name: string, seen: ModelRequest) => shellArguments(name, seen, command) } };
  };
}

function shellArguments(name: string, request: ModelRequest, command: string): unknown {
  if (name === "exec_command") return { cmd: command };
  if (name === "shell") return { command: ["bash", "-lc", command] };
  const schema = request.tools.find((tool) => tool.name === name)?.schema as { properties?: Record<string, unknown> } | undefined;
  const extra: Record<string, unknown> = {};
  // Copilot's bash asks for a mode and an initial wait; synchronous is what a commit needs.
  if (schema?.properties?.["mode"]) extra["mode"] = "sync";
  if (schema?.properties?.["initial_wait"]) extra["initial_wait"] = 30;
  return { command, description: `Commit the file`, ...extra };
}
