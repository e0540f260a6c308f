import { readFile, rename, writeFile } from "node:fs/promises";
import type { ConversationRecord } from "@outpost/core";
import type { Redactor } from "./redactor.js";

/**
 * With `redact.conversations`, rewrites the captured transcript on the host with the redactor applied. By default
 * the capture stays byte-exact, as a continuation needs it. A transcript that is not UTF-8 text (a binary bundle)
 * is left whole and named in a warning: replacing bytes inside it would corrupt it.
 */
export async function redactConversation(
  redactor: Redactor,
  record: ConversationRecord | undefined,
  warn: (message: string) => void,
): Promise<void> {
  if (!record || !redactor.conversations || redactor.empty) return;
  try {
    const bytes = await readFile(record.file);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      warn(`The captured conversation ${record.file} is not text, so it was not redacted.`);
      return;
    }
    const redacted = redactor.text(text);
    if (redacted === text) return;
    // Written beside it and renamed over it: a reader never sees half a transcript.
    const temporary = `${record.file}.${process.pid}.redacting`;
    await writeFile(temporary, redacted, { mode: 0o600 });
    await rename(temporary, record.file);
  } catch (error) {
    warn(`Could not redact the captured conversation ${record.file}: ${error instanceof Error ? error.message : String(error)}.`);
  }
}
