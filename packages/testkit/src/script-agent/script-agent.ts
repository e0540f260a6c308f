import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentAdapter, AgentEvent, AgentTurn } from "@outpost/core";
import { SCRIPT_AGENT_SOURCE } from "./script-agent-source.js";
import { scriptAgentStore } from "./script-agent-store.js";

export interface ScriptAgentConfig {
  /** Directory the executable is written to. */
  readonly directory: string;
  /**
   * SCRIPT_AGENT_* variables: FILE, CONTENT, MARKER (always | never | pass number), HANG (silent | busy | after-marker),
   * EXIT, DELAY_MS, CHILD_PID_FILE, PRINT_ENVIRONMENT (any value: print every variable it sees), SAVE_DELAY_MS (a new
   * conversation is saved only after that long).
   */
  readonly behaviour?: Readonly<Record<string, string>>;
  /** Portable conversations (default true). */
  readonly storage?: boolean;
  /** Takes the id of a new conversation (`--session-id`), as Claude Code, Copilot and Gemini do. */
  readonly namesConversations?: boolean;
  /** Node executable as the sandbox sees it (default: this process's; "node" inside a container). */
  readonly executable?: string;
}

/** A real agent process for tests and benchmarks: `node <script>` speaking JSON lines. */
export function scriptAgent(config: ScriptAgentConfig): AgentAdapter {
  mkdirSync(config.directory, { recursive: true });
  const script = join(config.directory, "script-agent.mjs");
  writeFileSync(script, SCRIPT_AGENT_SOURCE);
  const executable = config.executable ?? process.execPath;
  const variables = Object.fromEntries(Object.entries(config.behaviour ?? {}).map(([key, value]) => [`SCRIPT_AGENT_${key}`, value]));
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "script-agent",
    executable,
    requiresFinishedEvent: true,
    usage: "events",
    resumable: true,
    forkable: false,
    ...(config.storage === false ? {} : { storage: scriptAgentStore() }),
    ...(config.namesConversations === true ? { namesConversations: true } : {}),
    command(turn: AgentTurn) {
      const resume = turn.resume ? ["--resume", turn.resume.id] : [];
      const named = config.namesConversations === true && turn.conversationId !== undefined ? ["--session-id", turn.conversationId] : [];
      return { executable, arguments: [script, ...resume, ...named, turn.prompt], variables };
    },
    homeFiles() {
      return [{ path: ".script-agent/settings.json", content: JSON.stringify({ telemetry: false }) }];
    },
    createDecoder() {
      return { decode: decodeScriptAgentLine };
    },
  };
}

function decodeScriptAgentLine(line: string): AgentEvent[] {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return [{ type: "raw", line }];
  }
  switch (value.type) {
    case "conversation":
      return [{ type: "conversation", id: String(value.id) }];
    case "text":
      return [{ type: "text", text: String(value.text) }];
    case "tool":
      return [{ type: "tool-call", name: String(value.name), input: value.input }];
    case "tool-result":
      return [{ type: "tool-result", output: String(value.output) }];
    case "result": {
      const usage = value.usage as { input?: number; output?: number } | undefined;
      return [{ type: "finished", text: String(value.text), usage: { inputTokens: usage?.input, outputTokens: usage?.output } }];
    }
    default:
      return [{ type: "raw", line, value }];
  }
}
