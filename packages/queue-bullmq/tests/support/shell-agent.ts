import { DESCRIPTOR_SPECIFICATION_VERSION, type AgentDescriptor, type AgentEvent } from "@outpost/core";

// A cheap real agent: one shell line that writes the file the brief names, commits it and reports. The brief
// is "<file> [seconds [marker [gate]]]": the agent sleeps that long first, so a test can catch a worker mid-job; with a
// marker file only the first attempt sleeps (the marker records that it started, and its pid); with a gate file
// every attempt waits for that file before it commits.
const LINE = [
  "set -- $1",
  'case "$1" in *[!a-z0-9.-]*|"") echo "bad file name" >&2; exit 2;; esac',
  'if [ -z "$3" ]; then sleep "${2:-0}"; elif [ ! -e "$3" ]; then echo $$ > "$3.tmp"; mv "$3.tmp" "$3"; sleep "${2:-0}"; fi',
  'if [ -n "$4" ]; then while [ ! -e "$4" ]; do sleep 0.1; done; fi',
  'printf "%s\\n" "$1" > "$1"',
  'git add -- "$1"',
  'git commit -q -m "agent: $1"',
  `printf '%s\\n' '{"type":"text","text":"<outpost>done</outpost>"}' '{"type":"finished","text":"<outpost>done</outpost>"}'`,
].join("\n");

export const shellAgentDescriptor: AgentDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "agent",
  name: "shell",
  description: "commits the file its brief names (tests)",
  executable: "sh",
  variables: {},
  createAgent: () => ({
    kind: "cli",
    specificationVersion: "v1",
    name: "shell",
    executable: "sh",
    requiresFinishedEvent: true,
    usage: "unavailable",
    resumable: false,
    forkable: false,
    command: (turn) => ({
      executable: "sh",
      arguments: ["-c", LINE, "shell-agent", turn.prompt],
      variables: {
        GIT_AUTHOR_NAME: "Shell Agent",
        GIT_AUTHOR_EMAIL: "agent@outpost.invalid",
        GIT_COMMITTER_NAME: "Shell Agent",
        GIT_COMMITTER_EMAIL: "agent@outpost.invalid",
      },
    }),
    createDecoder: () => ({
      decode: (line: string): AgentEvent[] => {
        try {
          return [JSON.parse(line) as AgentEvent];
        } catch {
          return [{ type: "raw", line }];
        }
      },
    }),
  }),
};
