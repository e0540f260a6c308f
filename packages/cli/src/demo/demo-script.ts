import type { ModelRequest, ScriptStep } from "@outpost/testkit/model-server";

export const TURN1_MARKER = "MARKER_TURN1_DONE";
export const REMEMBERED = "history_has_turn1=true";

type ModelServerModule = typeof import("@outpost/testkit/model-server");

// Shell tools as the pinned agent CLIs name them, with the argument shape each takes.
const SHELL_TOOLS: Readonly<Record<string, (command: string) => unknown>> = {
  Bash: (command) => ({ command, description: "Commit hello.txt" }),
  bash: (command) => ({ command, description: "Commit hello.txt" }),
  run_shell_command: (command) => ({ command, description: "Commit hello.txt" }),
  Shell: (command) => ({ command }),
  exec_command: (command) => ({ cmd: command }),
  shell_command: (command) => ({ command }),
  shell: (command) => ({ command: ["bash", "-lc", command] }),
};

/**
 * What the scripted model answers, in order: write hello.txt with whichever writer tool the agent offers,
 * commit it with its shell tool, report (turn 1); asked in the continued conversation what it did, answer
 * from the history the agent CLI sent back (turn 2).
 */
export function demoScript(server: Pick<ModelServerModule, "writeFileStep">): ScriptStep[] {
  const commit = "git add hello.txt && git commit -q -m 'Add hello.txt'";
  return [
    server.writeFileStep("hello.txt", "Hello from an agent in an Outpost sandbox.\n"),
    {
      toolCall: {
        names: Object.keys(SHELL_TOOLS),
        arguments: (name: string, _request: ModelRequest) => SHELL_TOOLS[name]!(commit),
      },
    },
    { text: `I created hello.txt and committed it. ${TURN1_MARKER} <outpost>done</outpost>` },
    (request) => ({
      text: request.transcript.includes(TURN1_MARKER)
        ? `In the previous turn I created hello.txt and committed it (${REMEMBERED}). <outpost>done</outpost>`
        : "I have no memory of a previous turn (history_has_turn1=false).",
    }),
  ];
}
