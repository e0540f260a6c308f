import { posix } from "node:path";
import type { ModelRequest } from "./model-request.js";
import type { ToolCallStep } from "./script-step.js";

/** Tools that can write a file, in the order they are preferred, as the pinned CLIs name them. */
export const WRITE_FILE_TOOLS: readonly string[] = Object.freeze([
  "Write", // claude
  "write_file", // gemini
  "create", // copilot
  "write", // opencode
  "exec_command", // codex
  "shell_command",
  "shell",
  "apply_patch",
]);

/** A tool call that writes `content` to `path` (relative to the agent's workspace) with whichever writer tool is offered. */
export function writeFileStep(path: string, content: string): ToolCallStep {
  return {
    toolCall: {
      names: WRITE_FILE_TOOLS,
      arguments: (name: string, request: ModelRequest) => writeFileArguments(name, request, path, content),
    },
  };
}

/** Arguments for one writer tool. Tools that demand absolute paths get one under the workspace named in the prompt. */
export function writeFileArguments(name: string, request: ModelRequest, path: string, content: string): unknown {
  const absolute = posix.isAbsolute(path) ? path : posix.join(workingDirectory(request) ?? ".", path);
  const shell = `printf '%s' ${quote(content)} > ${quote(path)}`;
  switch (name) {
    case "Write":
      return { file_path: absolute, content };
    case "write_file":
      return { file_path: absolute, content };
    case "create":
      return { path: absolute, file_text: content };
    case "write":
      return { filePath: absolute, content };
    case "exec_command":
      return { cmd: shell };
    case "shell_command":
      return { command: shell };
    case "shell":
      return { command: ["bash", "-lc", shell] };
    case "apply_patch":
      return `*** Begin Patch\n*** Add File: ${path}\n${content
        .split("\n")
        .map((line) => `+${line}`)
        .join("\n")}\n*** End Patch`;
    default:
      return { path: absolute, content };
  }
}

// How each CLI tells the model its working directory (system prompt or environment context).
const WORKING_DIRECTORY_PATTERNS: readonly RegExp[] = [
  /<cwd>([^<]+)<\/cwd>/,
  /Primary working directory: *(\/\S*)/,
  /Workspace Directories:\**\s*-\s*(\/\S*)/,
  /Working directory: *(\/\S*)/i,
  /current working directory[^/\n]*?(\/[^\s'"`]*)/i,
  /working in the directory:?\s*(\/\S*)/i,
];

/** The workspace directory the CLI announced in its request, if any. */
export function workingDirectory(request: ModelRequest): string | undefined {
  for (const pattern of WORKING_DIRECTORY_PATTERNS) {
    const match = pattern.exec(request.transcript);
    if (match?.[1]) return match[1].replace(/[.,;:]+$/, "");
  }
  return undefined;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
