import { anthropicMessages } from "./anthropic-messages.js";
import { geminiGenerate } from "./gemini-generate.js";
import type { ModelProtocol } from "./http-answer.js";
import { openaiChat } from "./openai-chat.js";
import { openaiResponses } from "./openai-responses.js";

export const MODEL_PROTOCOLS: readonly ModelProtocol[] = Object.freeze([anthropicMessages, openaiResponses, openaiChat, geminiGenerate]);

/** The protocol serving `POST <path>`, whatever prefix the CLI puts before the API path. */
export function findProtocol(path: string): ModelProtocol | undefined {
  return MODEL_PROTOCOLS.find((protocol) => protocol.matches(path));
}
