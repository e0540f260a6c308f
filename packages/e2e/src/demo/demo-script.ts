import { writeFileStep, type ScriptStep } from "@outpost/testkit/model-server";

export const TURN1_MARKER = "MARKER_TURN1_DONE";

/**
 * What the scripted model answers, in order: write hello.txt, commit it with Bash, report (turn 1); then,
 * asked in a later turn what it did, answer from the history the CLI sent back (turn 2).
 */
export function demoScript(): ScriptStep[] {
  return [
    writeFileStep("hello.txt", "Hello from an agent in an Outpost sandbox.\n"),
    {
      toolCall: {
        name: "Bash",
        arguments: { command: "git add hello.txt && git commit -q -m 'Add hello.txt'", description: "Commit hello.txt" },
      },
    },
    { text: `I created hello.txt and committed it. ${TURN1_MARKER} <outpost>done</outpost>` },
    (request) => {
      const remembered = request.transcript.includes(TURN1_MARKER);
      return {
        text: remembered
          ? "In the previous turn I created hello.txt and committed it (history_has_turn1=true). <outpost>done</outpost>"
          : "I have no memory of a previous turn (history_has_turn1=false).",
      };
    },
  ];
}
