import { posix } from "node:path";
import type { TranscriptFormat } from "../src/index.js";

/** A one-file-per-conversation layout like Claude's: `<cli>/sessions/<basename(cwd)>/<id>.jsonl` + `<id>/`. */
export const demoTranscript: TranscriptFormat = {
  format: "demo-transcript",
  root: { variable: "DEMO_TRANSCRIPT_HOME", directory: ".demo-transcript" },
  sessions: "sessions",
  transcriptPattern: (id) => `^[^/]+/${id}\\.jsonl$`,
  sidecar: true,
  destination: ({ id, workspace }) => `${posix.basename(workspace)}/${id}.jsonl`,
};

/** A transcript line that mentions the workspace and the home the way agents do. */
export function transcriptLine(index: number, workspace: string, home: string): string {
  const line = {
    index,
    type: "tool",
    cwd: workspace,
    input: { file_path: `${workspace}/src/file-${index}.ts` },
    output: `read ${workspace}/src ok; not ${workspace}ository`,
    memory: `${home}/.demo-transcript/memory`,
    text: "é\u2028 \\u0041 — padding text for realism",
  };
  return `${JSON.stringify(line)}\n`;
}
