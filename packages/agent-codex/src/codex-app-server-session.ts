import { OutpostError, isJsonObject, jsonObject, jsonString, parseJsonLine } from "@outpost/core";
import type { AgentCommand, AgentLiveMessage, AgentLiveSession, AgentTurn } from "@outpost/core";
import {
  FIRST_STEER_ID,
  OPENING_REQUEST,
  UNATTENDED,
  rpcError,
  rpcNotification,
  rpcRequest,
  textInput,
} from "./codex-app-server-protocol.js";

/** What the session runs: `codex app-server` with the agent's settings. */
export interface CodexAppServerCommand {
  readonly executable: string;
  /** `app-server` and its `-c` overrides. */
  readonly arguments: readonly string[];
  readonly variables: Readonly<Record<string, string>>;
  readonly model?: string;
  /** The codex release whose protocol this client speaks, reported as the client's version. */
  readonly clientVersion: string;
}

interface Answer {
  readonly resolve: () => void;
  readonly reject: (error: OutpostError) => void;
}

/**
 * One Codex turn through its app-server, so that instructions reach the running turn: initialize, then
 * thread/start (or thread/resume, thread/fork for a continuation), then turn/start with the prompt, each sent
 * once the previous answer is read; an instruction becomes `turn/steer` with the running turn's id (held until
 * that id is known). The server's output is decoded by CodexAppServerDecoder; stdin ends with the turn's final
 * event, and the server then exits.
 */
export class CodexAppServerSession implements AgentLiveSession {
  readonly command: AgentCommand;
  private threadId: string | undefined;
  private turnId: string | undefined;
  /** Why instructions are refused now; undefined while the turn opens or runs. */
  private over: string | undefined;
  private nextId = FIRST_STEER_ID;
  private readonly held: { readonly text: string; readonly answer: Answer }[] = [];
  private readonly pending = new Map<number, Answer>();

  constructor(
    private readonly turn: AgentTurn,
    private readonly server: CodexAppServerCommand,
  ) {
    const clientInfo = { name: "outpost", title: "Outpost", version: server.clientVersion };
    this.command = {
      executable: server.executable,
      arguments: server.arguments,
      stdin: rpcRequest(OPENING_REQUEST.initialize, "initialize", { clientInfo, capabilities: null }),
      variables: server.variables,
      directory: turn.root,
    };
  }

  message(text: string): AgentLiveMessage {
    if (this.over !== undefined) return { write: "", accepted: Promise.reject(refusal(this.over)) };
    let answer!: Answer;
    const accepted = new Promise<void>((resolve, reject) => (answer = { resolve, reject }));
    if (this.turnId === undefined) {
      this.held.push({ text, answer });
      return { write: "", accepted };
    }
    return { write: this.steer(text, answer), accepted };
  }

  reply(line: string): string | undefined {
    const value = parseJsonLine(line);
    if (!value) return undefined;
    const id = value["id"];
    // A request of the server (an approval, a question): unattended, nobody answers it.
    if (id !== undefined && typeof value["method"] === "string")
      return rpcError(id, `Outpost runs codex unattended and answers no ${value["method"]} request.`);
    if (value["method"] === "turn/completed") {
      this.end("the turn had already finished");
      return undefined;
    }
    if (typeof id !== "number") return undefined;
    const error = isJsonObject(value["error"]) ? (jsonString(value["error"]["message"]) ?? JSON.stringify(value["error"])) : undefined;
    const result = jsonObject(value["result"]);
    if (id === OPENING_REQUEST.initialize || id === OPENING_REQUEST.thread || id === OPENING_REQUEST.turn) {
      if (error !== undefined) {
        this.end(`codex could not open the turn: ${error}`);
        return undefined;
      }
      return this.opened(id, result);
    }
    const answer = this.pending.get(id);
    if (!answer) return undefined;
    this.pending.delete(id);
    if (error === undefined) answer.resolve();
    else answer.reject(refusal(`codex refused it (turn/steer: ${error})`));
    return undefined;
  }

  close(): void {
    this.end("codex ended before it took the instruction");
    for (const answer of this.pending.values()) answer.reject(refusal("codex ended before it answered the instruction"));
    this.pending.clear();
  }

  /** The next opening request, once the previous one is answered; then the held instructions. */
  private opened(id: number, result: Record<string, unknown>): string | undefined {
    if (id === OPENING_REQUEST.initialize) return rpcNotification("initialized") + this.threadRequest();
    if (id === OPENING_REQUEST.thread) {
      this.threadId = jsonString(jsonObject(result["thread"])["id"]);
      if (this.threadId === undefined) {
        this.end("codex answered the thread request without a thread id");
        return undefined;
      }
      return rpcRequest(OPENING_REQUEST.turn, "turn/start", { threadId: this.threadId, input: textInput(this.turn.prompt) });
    }
    this.turnId = jsonString(jsonObject(result["turn"])["id"]);
    if (this.turnId === undefined) {
      this.end("codex answered turn/start without a turn id");
      return undefined;
    }
    const held = this.held.splice(0);
    return held.length === 0 ? undefined : held.map((entry) => this.steer(entry.text, entry.answer)).join("");
  }

  private threadRequest(): string {
    const settings = { cwd: this.turn.root, ...UNATTENDED, ...(this.server.model === undefined ? {} : { model: this.server.model }) };
    const resume = this.turn.resume;
    if (!resume) return rpcRequest(OPENING_REQUEST.thread, "thread/start", settings);
    // `excludeTurns`: the answer carries the thread, not its whole history.
    const params = { threadId: resume.id, ...settings, excludeTurns: true };
    return rpcRequest(OPENING_REQUEST.thread, resume.fork ? "thread/fork" : "thread/resume", params);
  }

  private steer(text: string, answer: Answer): string {
    const id = this.nextId++;
    this.pending.set(id, answer);
    return rpcRequest(id, "turn/steer", { threadId: this.threadId, expectedTurnId: this.turnId, input: textInput(text) });
  }

  /** No instruction can reach the turn any more: held ones are refused with `reason`, later ones too. */
  private end(reason: string): void {
    this.over ??= reason;
    for (const entry of this.held.splice(0)) entry.answer.reject(refusal(this.over));
  }
}

function refusal(reason: string): OutpostError {
  return new OutpostError("steering", `Codex did not take the instruction: ${reason}.`, { details: { reason } });
}
